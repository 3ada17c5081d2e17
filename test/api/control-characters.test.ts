// A NUL byte (or another control character no field needs) in any text is refused at
// validation with 422 on both databases: in bodies, query strings and logins, with or without a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError, expectValidationError } from '../helpers/expect.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, userFields,V1, V2 } from '../helpers/users.js'

let t: TestApp
let me: LoggedIn
beforeAll(async () => {
  t = await createTestApp({}, (app) => {
    // Text PostgreSQL refuses to store, reaching the database despite validation.
    app.get('/test/invalid-text', async () => {
      throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })
    })
  })
  me = await seedAndLogin(t.app)
})
afterAll(() => t.close())

const NUL = '\u0000'

describe('control characters', () => {
  it.each([
    ['v1 sign-up name', () => ({ method: 'POST', url: `${V1}/users/`, payload: userFields({ name: `Ada${NUL}` }) })],
    ['v1 sign-up email', () => ({ method: 'POST', url: `${V1}/users/`, payload: userFields({ email: `a${NUL}@example.com` }) })],
    ['v1 update', () => ({ method: 'PATCH', url: `${V1}/users/${me.user.id}`, payload: { name: `Ad${NUL}a` }, headers: me.headers })],
    ['v2 update', () => ({ method: 'PATCH', url: `${V2}/users/${me.user.id}`, payload: { name: `Ad${NUL}a` }, headers: me.headers })],
    ['post title', () => ({ method: 'POST', url: `${V1}/posts/`, payload: { title: `t${NUL}`, text: 'x' }, headers: me.headers })],
    ['post text', () => ({ method: 'POST', url: `${V2}/posts/`, payload: { title: 't', text: `x${NUL}y` }, headers: me.headers })],
    ['JSON login', () => ({ method: 'POST', url: `${V1}/login`, payload: { username: `ad${NUL}a`, password: 'whatever123' } })],
    [
      'form login',
      () => ({
        method: 'POST',
        url: `${V2}/login`,
        payload: `username=ad%00a&password=whatever123`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    ],
    ['v1 search name', () => ({ method: 'GET', url: `${V1}/users/search?name=a%00b` })],
    ['v2 search text', () => ({ method: 'GET', url: `${V2}/users/search?search=a%00b` })],
    ['v2 user list search', () => ({ method: 'GET', url: `${V2}/users/?search=%00` })],
    ['post list search', () => ({ method: 'GET', url: `${V1}/posts/?search=a%00` })],
    ['another control character', () => ({ method: 'GET', url: `${V2}/posts/?search=a%1Bb` })],
  ] as const)('are refused with 422 in %s', async (_where, request) => {
    const response = await t.app.inject(request() as never)
    expectError(response, 422, /control characters/)
    expect(response.json().errors[0].type).toBe('string_control_character')
  })

  it('are reported at the field that holds them', async () => {
    const post = await t.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: { title: 'fine', text: `x${NUL}` }, headers: me.headers })
    expectValidationError(post, ['body', 'text'])
    expectValidationError(await t.app.inject({ url: `${V1}/users/search?name=a%00b` }), ['query', 'name'])
  })

  it('leave tabs and line breaks alone in text', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `${V1}/posts/`,
      payload: { title: 'Lines', text: 'one\ntwo\r\n\tthree' },
      headers: me.headers,
    })
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().text).toBe('one\ntwo\r\n\tthree')
  })
})

describe("PostgreSQL's invalid-text errors", () => {
  it('answer 400 with a detail, never a 500', async () => {
    expectError(await t.app.inject({ url: '/test/invalid-text' }), 400, 'Request contains text that cannot be stored')
  })
})

describe('deeply nested JSON', () => {
  // Built as text: a value 10,000 levels deep, and one just past the bound.
  const nested = (depth: number) => `{"username":"ada","password":"x","extra":${'['.repeat(depth)}1${']'.repeat(depth)}}`

  it.each([V1, V2])('is refused with 422 on any JSON route, unauthenticated, never a 5xx (%s)', async (prefix) => {
    for (const depth of [10_000, 40]) {
      const response = await t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: nested(depth), headers: { 'content-type': 'application/json' } })
      expectError(response, 422, undefined, 'validation_failed')
      expect(response.json().errors[0]).toMatchObject({ type: 'too_deep' })
    }
    // Shallow enough, the same body fails only for its unknown field.
    const shallow = await t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: nested(5), headers: { 'content-type': 'application/json' } })
    expect(shallow.json().errors[0]).toMatchObject({ type: 'extra_forbidden' })
  })
})
