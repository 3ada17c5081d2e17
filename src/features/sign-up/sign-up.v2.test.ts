// POST /api/v2/signup: anyone creates their own account and is logged in by the same answer;
// the same rules as every sign-up (validation, 409s, the per-address budget, the security event,
// the verification mail), and POST /api/v2/users/ keeps needing a logged-in caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import { seedAndLogin, userFields, V1, V2 } from '../../../test/helpers/users.js'

const signUp = (t: TestApp, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${V2}/signup`, payload, headers })

describe('POST /api/v2/signup', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('creates the account and logs it in: the v2 user, its token pair and the refresh cookie', async () => {
    const fields = userFields()
    const response = await signUp(t, { ...fields, accept_terms: true })
    expect(response.statusCode, response.body).toBe(201)
    const body = response.json()
    expect(body).toMatchObject({ username: fields.username, email: fields.email, is_verified: false, subscription_tier: null })
    expect(body.tokens).toMatchObject({ token_type: 'bearer' })
    expect(response.headers['cache-control']).toBe('no-store')
    const cookies = response.cookies.map((cookie) => cookie.name)
    expect(cookies).toContain('refresh_token')
    expect(response.cookies.find((cookie) => cookie.name === 'refresh_token')?.value).toBe(body.tokens.refresh_token)

    const me = await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${body.tokens.access_token}` } })
    expect(me.json()).toMatchObject({ id: body.id, email: fields.email })
    // The token works in the other version as well, and the cookie refreshes the session.
    const meV1 = await t.app.inject({ url: `${V1}/users/me`, headers: { authorization: `Bearer ${body.tokens.access_token}` } })
    expect(meV1.statusCode).toBe(200)
    const refreshed = await t.app.inject({ method: 'POST', url: `${V2}/refresh`, cookies: { refresh_token: body.tokens.refresh_token } })
    expect(refreshed.statusCode, refreshed.body).toBe(200)

    const events = await t.app.inject({ url: `${V2}/users/me/security-events`, headers: { authorization: `Bearer ${body.tokens.access_token}` } })
    expect((events.json().data as { type: string }[]).map((event) => event.type).sort()).toEqual(['login_succeeded', 'user_signed_up'])
  })

  it('validates like every sign-up: the terms, a weak password, unknown fields, and taken names are 409s', async () => {
    const fields = userFields()
    expectValidationError(await signUp(t, { ...fields, accept_terms: false }), ['body', 'accept_terms'])
    expectValidationError(await signUp(t, { ...userFields(), accept_terms: true, is_superuser: true }), ['body', 'is_superuser'])
    expectError(await signUp(t, { ...userFields({ password: 'password' }), accept_terms: true }), 422)
    expect((await signUp(t, { ...fields, accept_terms: true })).statusCode).toBe(201)
    expectError(await signUp(t, { ...userFields({ email: fields.email }), accept_terms: true }), 409, 'Email is already registered', 'email_taken')
    expectError(await signUp(t, { ...userFields({ username: fields.username }), accept_terms: true }), 409, 'Username not available', 'username_taken')
  })

  it('is refused when a page of another site sends it (login CSRF), unless CORS_ORIGINS lists that page', async () => {
    const refused = await signUp(t, { ...userFields(), accept_terms: true }, { origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' })
    expectError(refused, 403, 'Cross-site request refused', 'cross_site_refused')
    const listed = await signUp(t, { ...userFields(), accept_terms: true }, { origin: 'http://localhost:5173', 'sec-fetch-site': 'cross-site' })
    expect(listed.statusCode, listed.body).toBe(201)
  })

  it('POST /api/v2/users/ still needs a logged-in caller, who gets no session of the new user', async () => {
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/users/`, payload: { ...userFields(), accept_terms: true } }), 401)
    const { headers } = await seedAndLogin(t.app)
    const created = await t.app.inject({ method: 'POST', url: `${V2}/users/`, payload: { ...userFields(), accept_terms: true }, headers })
    expect(created.statusCode).toBe(201)
    expect(created.json().tokens).toBeUndefined()
    const bySignUp = await signUp(t, { ...userFields(), accept_terms: true }, headers)
    expect(bySignUp.statusCode).toBe(201)
    expect(bySignUp.json().tokens).toBeUndefined()
    expect(bySignUp.headers['set-cookie']).toBeUndefined()
  })
})

describe('POST /api/v2/signup with its settings', () => {
  it('SIGNUP_LOGIN=false creates the account without a session', async () => {
    const t = await createTestApp({ SIGNUP_LOGIN: 'false' })
    try {
      const response = await signUp(t, { ...userFields(), accept_terms: true })
      expect(response.statusCode).toBe(201)
      expect(response.json().tokens).toBeUndefined()
      expect(response.headers['set-cookie']).toBeUndefined()
    } finally {
      await t.close()
    }
  })

  it('USER_SIGNUP=authenticated needs a logged-in caller', async () => {
    const t = await createTestApp({ USER_SIGNUP: 'authenticated' })
    try {
      expectError(await signUp(t, { ...userFields(), accept_terms: true }), 401)
      const { headers } = await seedAndLogin(t.app)
      expect((await signUp(t, { ...userFields(), accept_terms: true }, headers)).statusCode).toBe(201)
    } finally {
      await t.close()
    }
  })

  it('shares the per-address sign-up budget with v1', async () => {
    const t = await createTestApp({ SIGNUP_RATE_LIMIT: '2/3600' })
    try {
      expect((await signUp(t, { ...userFields(), accept_terms: true })).statusCode).toBe(201)
      expect((await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: userFields() })).statusCode).toBe(201)
      const limited = await signUp(t, { ...userFields(), accept_terms: true })
      expectError(limited, 429)
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    } finally {
      await t.close()
    }
  })

  it('mails a verification link with the sign-up when SMTP is set, in both versions', async () => {
    const { smtp, t, close } = await createAppWithSmtp()
    try {
      const fields = userFields()
      expect((await signUp(t, { ...fields, accept_terms: true })).statusCode).toBe(201)
      const [mail] = await smtp.waitFor(fields.email, 1)
      const confirmed = await t.app.inject({ method: 'POST', url: `${V2}/email-verification/confirm`, payload: { token: tokenIn(mail!) } })
      expect(confirmed.statusCode, confirmed.body).toBe(200)
      const v1Fields = userFields()
      expect((await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: v1Fields })).statusCode).toBe(201)
      await smtp.waitFor(v1Fields.email, 1)
    } finally {
      await close()
    }
  })
})
