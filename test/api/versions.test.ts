// Section 9: the version listing, deprecation headers and the sunset switch, by configuration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { seedUser,V1, V2 } from '../helpers/users.js'

const DEPRECATION_HEADERS = ['x-api-deprecation', 'x-api-sunset', 'deprecation', 'sunset', 'link']

describe('without deprecation settings', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('GET / points to the docs of each version, the versions, health and the admin console', async () => {
    const response = await t.app.inject({ url: '/' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      name: 'user-post-service',
      docs: { v1: '/services/v1/docs', v2: '/api/v2/docs' },
      openapi: { v1: '/services/v1/openapi.json', v2: '/api/v2/openapi.json' },
      versions: '/api/versions',
      health: '/health',
      admin_console: '/admin/',
    })
    for (const link of ['/api/v2/docs', '/services/v1/docs', '/api/v2/openapi.json', '/api/versions', '/health', '/admin/']) {
      expect((await t.app.inject({ url: link })).statusCode, link).toBe(200)
    }
  })

  it('GET /api/versions lists both versions, v2 current', async () => {
    const response = await t.app.inject({ url: '/api/versions' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      available_versions: ['v1', 'v2'],
      current_version: 'v2',
      deprecated_versions: [],
      sunset_dates: {},
    })
  })

  it('sends no deprecation headers', async () => {
    const response = await t.app.inject({ url: `${V1}/users/` })
    for (const header of DEPRECATION_HEADERS) expect(response.headers[header]).toBeUndefined()
  })
})

describe('v1 deprecated with a future sunset date', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ DEPRECATED_VERSIONS: 'v1', SUNSET_DATES: 'v1=2999-01-01' })
  })
  afterAll(() => t.close())

  it('lists it in /api/versions', async () => {
    expect((await t.app.inject({ url: '/api/versions' })).json()).toMatchObject({
      deprecated_versions: ['v1'],
      sunset_dates: { v1: '2999-01-01' },
    })
  })

  it('marks every v1 response, errors and unknown routes included', async () => {
    const user = await seedUser(t.app)
    const responses = await Promise.all([
      t.app.inject({ url: `${V1}/users/${user.id}` }),
      t.app.inject({ url: `${V1}/users/me` }),
      t.app.inject({ url: `${V1}/no-such-route` }),
      t.app.inject({ url: `${V1}/docs` }),
      t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: 'x', password: 'y' } }),
    ])
    expect(responses.map((r) => r.statusCode)).toEqual([200, 401, 404, 200, 401])
    for (const response of responses) {
      expect(response.headers['x-api-deprecation']).toMatch(/v2.*\/api\/v2/)
      expect(response.headers['x-api-sunset']).toBe('2999-01-01')
      expect(response.headers.deprecation).toMatch(/^@\d+$/)
      expect(response.headers.sunset).toBe('Tue, 01 Jan 2999 00:00:00 GMT')
      expect(response.headers.link).toBe('</api/v2/docs>; rel="successor-version"')
    }
  })

  it('leaves v2 unmarked', async () => {
    const response = await t.app.inject({ url: `${V2}/users/` })
    expect(response.statusCode).toBe(200)
    for (const header of DEPRECATION_HEADERS) expect(response.headers[header]).toBeUndefined()
  })

  it("marks v1's operations deprecated in its OpenAPI document", async () => {
    const document = (await t.app.inject({ url: `${V1}/openapi.json` })).json()
    expect(document.paths['/services/v1/users/{user_id}'].get.deprecated).toBe(true)
    expect(document.info.description).toMatch(/Deprecated/)
    const current = (await t.app.inject({ url: `${V2}/openapi.json` })).json()
    expect(current.paths['/api/v2/users/{user_id}'].get.deprecated).toBeUndefined()
  })
})

describe('v1 deprecated without a sunset date', () => {
  it('sends the deprecation headers but no sunset', async () => {
    const t = await createTestApp({ DEPRECATED_VERSIONS: 'v1' })
    try {
      const response = await t.app.inject({ url: `${V1}/users/` })
      expect(response.statusCode).toBe(200)
      expect(response.headers['x-api-deprecation']).toBeDefined()
      expect(response.headers.deprecation).toBeDefined()
      expect(response.headers['x-api-sunset']).toBeUndefined()
      expect(response.headers.sunset).toBeUndefined()
    } finally {
      await t.close()
    }
  })
})

describe('v1 past its sunset date', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ DEPRECATED_VERSIONS: 'v1', SUNSET_DATES: 'v1=2020-01-01' })
  })
  afterAll(() => t.close())

  it('answers 410 naming the replacement, for every v1 route', async () => {
    const user = await seedUser(t.app)
    for (const request of [
      { url: `${V1}/users/${user.id}` },
      { url: `${V1}/users/` },
      { url: `${V1}/no-such-route` },
      { url: `${V1}/docs` },
      { method: 'POST' as const, url: `${V1}/login`, payload: { username: user.username, password: user.password } },
    ]) {
      const response = await t.app.inject(request)
      expectError(response, 410, /v2.*\/api\/v2/)
      expect(response.headers.sunset).toBe('Wed, 01 Jan 2020 00:00:00 GMT')
    }
  })

  it('keeps v2 and the rest of the service working', async () => {
    const user = await seedUser(t.app)
    expect((await t.app.inject({ url: `${V2}/users/${user.id}` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/api/versions' })).statusCode).toBe(200)
  })

  it('no longer lists v1 as available or deprecated, and keeps its sunset date', async () => {
    expect((await t.app.inject({ url: '/api/versions' })).json()).toEqual({
      available_versions: ['v2'],
      current_version: 'v2',
      deprecated_versions: [],
      sunset_dates: { v1: '2020-01-01' },
    })
  })
})
