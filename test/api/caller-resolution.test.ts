// The caller of a request is resolved once, by the authentication hook, before any route's own
// hooks, and the same way whether the request limits run or not (REQUEST_LIMITS=off).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin,V2 } from '../helpers/users.js'

describe.each(['on', 'off'])('with REQUEST_LIMITS=%s', (requestLimits) => {
  let t: TestApp
  let owner: LoggedIn
  let apiKey: string
  beforeAll(async () => {
    t = await createTestApp({ REQUEST_LIMITS: requestLimits, EMAIL_VISIBILITY: 'owner' })
    owner = await seedAndLogin(t.app)
    const created = await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, payload: { name: 'reader', scopes: ['read'] }, headers: owner.headers })
    apiKey = (created.json() as { key: string }).key
  })
  afterAll(() => t.close())

  it('answers /users/me for a bearer token and for an API key, and 401 without valid credentials', async () => {
    const byToken = await t.app.inject({ url: `${V2}/users/me`, headers: owner.headers })
    expect(byToken.statusCode).toBe(200)
    expect(byToken.json()).toMatchObject({ id: owner.user.id, email: owner.user.email })
    const byKey = await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': apiKey } })
    expect(byKey.json()).toMatchObject({ id: owner.user.id })
    expectError(await t.app.inject({ url: `${V2}/users/me` }), 401, 'Not authenticated', 'not_authenticated')
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: 'Bearer not.a.token' } }), 401, 'Not authenticated')
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': 'ups_nope' } }), 401, 'Not authenticated')
  })

  it('knows the caller of a public route: the owner sees their email, others do not', async () => {
    const asOwner = await t.app.inject({ url: `${V2}/users/${owner.user.id}`, headers: owner.headers })
    expect(asOwner.json()).toMatchObject({ email: owner.user.email })
    const anonymous = await t.app.inject({ url: `${V2}/users/${owner.user.id}` })
    expect(anonymous.json()).not.toHaveProperty('email')
    // Credentials that fail leave a public read anonymous rather than refusing it.
    const badToken = await t.app.inject({ url: `${V2}/users/${owner.user.id}`, headers: { authorization: 'Bearer not.a.token' } })
    expect(badToken.statusCode).toBe(200)
    expect(badToken.json()).not.toHaveProperty('email')
  })

  it('verifies a token once per request', async () => {
    const authenticate = vi.spyOn(t.app.services.auth, 'authenticate')
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: owner.headers })).statusCode).toBe(200)
    expect(authenticate).toHaveBeenCalledTimes(1)
  })
})
