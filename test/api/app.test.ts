// Behaviour shared by every endpoint: error format, limits, headers, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { seedUser, userFields,V1 } from '../helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({}, (app) => {
    // Test-only routes that fail the way a bug would.
    app.get('/test/crash', async () => {
      throw new Error('SELECT hashed_password FROM users -- internal detail at /srv/app.js:1')
    })
    app.get('/test/crash-sync', () => {
      throw Object.assign(new TypeError('cannot read properties of undefined'), { statusCode: undefined })
    })
  })
})
afterAll(() => t.close())

describe('errors', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/services/v1/nope'],
    ['POST', '/services/v1/users/1/nope'],
    ['GET', '/services/v2/users/'],
    ['PUT', '/services/v1/users/1'],
  ])('answers an unknown route %s %s with 404 "Not Found"', async (method, url) => {
    expectError(await t.app.inject({ method: method as 'GET', url }), 404, 'Not Found')
  })

  it('answers 500 "Internal server error" without a stack, SQL or path', async () => {
    for (const url of ['/test/crash', '/test/crash-sync']) {
      const response = await t.app.inject({ url })
      expect(response.statusCode).toBe(500)
      expect(response.json()).toEqual({ detail: 'Internal server error', code: 'internal_error' })
    }
  })

  it('refuses a JSON body over 1 MiB with 413 "Request body too large"', async () => {
    const payload = JSON.stringify({ ...userFields(), name: 'x'.repeat(1024 * 1024) })
    const response = await t.app.inject({ method: 'POST', url: `${V1}/users/`, headers: { 'content-type': 'application/json' }, payload })
    expectError(response, 413, 'Request body too large')
  })

  it('refuses prototype pollution attempts', async () => {
    const payload = `{"name":"Proto Type","username":"proto","email":"p@example.com","password":"long enough","__proto__":{"is_superuser":true}}`
    const response = await t.app.inject({ method: 'POST', url: `${V1}/users/`, headers: { 'content-type': 'application/json' }, payload })
    expect(response.statusCode).toBeGreaterThanOrEqual(400)
    expect(response.statusCode).toBeLessThan(500)
    expectError(response, response.statusCode)
  })

  it('treats a trailing slash as the same route', async () => {
    const user = await seedUser(t.app)
    expect((await t.app.inject({ url: `${V1}/users` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V1}/users/` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V1}/users/${user.id}/` })).statusCode).toBe(200)
  })
})

describe('security headers', () => {
  it('sends nosniff and friends on JSON responses and errors', async () => {
    for (const url of [`${V1}/users/`, '/nope']) {
      const response = await t.app.inject({ url })
      expect(response.headers['x-content-type-options']).toBe('nosniff')
      expect(response.headers['x-frame-options']).toBe('DENY')
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
      expect(response.headers['strict-transport-security']).toMatch(/max-age=/)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
    }
  })
})

describe('health', () => {
  it('GET /health says the process is up', async () => {
    const response = await t.app.inject({ url: '/health' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
  })

  it('GET /ready says the database answers', async () => {
    const response = await t.app.inject({ url: '/ready' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
  })
})
