// Second factors end to end: TOTP set up and confirmed with codes computed here from the secret
// (RFC 6238, one step of drift, no replay), recovery codes single use, step-up on every first
// factor, the mfa_token's limits, the per-account budget and its device rule, turning it off,
// a superuser's reset, REQUIRE_MFA_FOR_SUPERUSERS, SECRET_KEY rotation, and a second app
// instance on the same database.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { SoftwareAuthenticator } from '../../../test/helpers/authenticator.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { codeIn, createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import { awayFromStepEdge, aWrongCode, enrolTotp, totpCode } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  const setup = await createAppWithSmtp({ PUBLIC_URL: 'http://localhost:8000', MFA_ISSUER: 'Example App' })
  smtp = setup.smtp
  t = setup.t
  close = setup.close
})
afterAll(() => close())

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })
const post = (url: string, payload: object, headers: Record<string, string> = {}, app: FastifyInstance = t.app) => app.inject({ method: 'POST', url, payload, headers })
const passwordLogin = (who: LoggedIn, prefix = V2, app: FastifyInstance = t.app) => post(`${prefix}/login`, { username: who.user.username, password: who.user.password }, {}, app)
const finish = (payload: object, headers: Record<string, string> = {}, app: FastifyInstance = t.app) => post(`${V2}/login/mfa`, payload, headers, app)

/** The 401 mfa_required of a first factor, checked, and its token. */
function mfaTokenOf(response: Awaited<ReturnType<typeof post>>): string {
  expectError(response, 401, 'Second factor required', 'mfa_required')
  const body = response.json() as { mfa_token: string; methods: string[] }
  expect(body.methods).toEqual(['totp', 'recovery_code'])
  expect(body.mfa_token).toMatch(/^[\w-]{43}$/)
  expect(response.body).not.toContain('access_token')
  expect(response.cookies.map((cookie) => cookie.name)).not.toContain('refresh_token')
  return body.mfa_token
}

const eventsOf = async (userId: number) =>
  (await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', userId).orderBy('created_at').execute()).map((row) => `${row.type}:${row.method ?? ''}`)

describe('setting up TOTP', () => {
  it('gives a pending secret, confirms it with a code from it, and answers ten recovery codes stored hashed', async () => {
    const who = await seedAndLogin(t.app)
    const before = await t.app.inject({ url: `${V2}/users/me/mfa`, headers: who.headers })
    expect(before.json()).toEqual({ totp: { enabled: false, confirmed_at: null }, recovery_codes_left: 0, passkeys: 0, methods: [] })

    const setup = await post(`${V2}/users/me/mfa/totp`, {}, who.headers)
    expect(setup.statusCode, setup.body).toBe(200)
    const { secret, otpauth_url } = setup.json() as { secret: string; otpauth_url: string }
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    const url = new URL(otpauth_url)
    expect(url.protocol).toBe('otpauth:')
    expect(url.searchParams.get('secret')).toBe(secret)
    expect(url.searchParams.get('issuer')).toBe('Example App')
    expect(decodeURIComponent(url.pathname)).toContain(who.user.email)
    const qr = (setup.json() as { qr_code: string }).qr_code
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/)
    expect(Buffer.from(qr.split(',')[1]!, 'base64').toString()).toContain('<svg')
    // Encrypted at rest: the row never holds the secret.
    const stored = await t.db.selectFrom('totp_factors').selectAll().where('user_id', '=', who.user.id).executeTakeFirstOrThrow()
    expect(stored.secret).not.toContain(secret)
    expect(stored.confirmed_at).toBeNull()
    // Pending is not enabled: a login asks nothing more.
    expect((await passwordLogin(who)).statusCode).toBe(200)

    const step = await awayFromStepEdge()
    expectError(await post(`${V2}/users/me/mfa/totp/confirm`, { code: totpCode(secret, step - 2) }, who.headers), 400, 'Invalid code', 'invalid_mfa_code')
    const confirmed = await post(`${V2}/users/me/mfa/totp/confirm`, { code: totpCode(secret, step) }, who.headers)
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const codes = (confirmed.json() as { recovery_codes: string[] }).recovery_codes
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/)
    const hashes = await t.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', who.user.id).execute()
    expect(hashes).toHaveLength(10)
    expect(JSON.stringify(hashes)).not.toContain(codes[0]!.slice(0, 5))

    const after = (await t.app.inject({ url: `${V2}/users/me/mfa`, headers: who.headers })).json()
    expect(after).toMatchObject({ totp: { enabled: true, confirmed_at: expect.any(String) }, recovery_codes_left: 10, methods: ['totp', 'recovery_code'] })
    // Confirming proved the new factor: the session stays fresh, and the account has it already.
    expectError(await post(`${V2}/users/me/mfa/totp`, {}, who.headers), 409, undefined, 'mfa_already_enabled')
    expectError(await post(`${V2}/users/me/mfa/totp/confirm`, { code: totpCode(secret, step + 1) }, who.headers), 409, undefined, 'mfa_not_enabled')
    expect(await eventsOf(who.user.id)).toContain('mfa_enabled:totp')
  })

  it('replaces a pending secret with a new call: the first one no longer confirms', async () => {
    const who = await seedAndLogin(t.app)
    const first = (await post(`${V2}/users/me/mfa/totp`, {}, who.headers)).json().secret as string
    const second = (await post(`${V2}/users/me/mfa/totp`, {}, who.headers)).json().secret as string
    expect(second).not.toBe(first)
    const step = await awayFromStepEdge()
    expectError(await post(`${V2}/users/me/mfa/totp/confirm`, { code: totpCode(first, step) }, who.headers), 400, 'Invalid code', 'invalid_mfa_code')
    expect((await post(`${V2}/users/me/mfa/totp/confirm`, { code: totpCode(second, step) }, who.headers)).statusCode).toBe(200)
  })

  it('is refused to API keys and to callers who are not signed in', async () => {
    const who = await seedAndLogin(t.app)
    const key = (await post(`${V2}/api-keys/`, { name: 'k', scopes: ['read', 'write'] }, who.headers)).json().key as string
    expectError(await post(`${V2}/users/me/mfa/totp`, {}, { 'x-api-key': key }), 403, undefined, 'api_key_not_allowed')
    expectError(await post(`${V2}/users/me/mfa/totp`, {}), 401)
  })
})

describe('signing in with a second factor', () => {
  it('steps up a password login in both versions and the OAuth2 form, and finishes with a code into a session valid in both', async () => {
    const who = await seedAndLogin(t.app)
    const { secret, confirmedStep } = await enrolTotp(t.app, who.headers)
    const v1Token = mfaTokenOf(await passwordLogin(who, V1))
    const form = await t.app.inject({
      method: 'POST',
      url: `${V1}/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `username=${encodeURIComponent(who.user.username)}&password=${encodeURIComponent(who.user.password)}`,
    })
    expect(form.statusCode).toBe(401)
    const token = mfaTokenOf(await passwordLogin(who))
    expect(token).not.toBe(v1Token)

    const done = await finish({ mfa_token: token, code: totpCode(secret, confirmedStep + 1) })
    expect(done.statusCode, done.body).toBe(200)
    expect(done.cookies.map((cookie) => cookie.name).sort()).toEqual(['device', 'refresh_token'])
    const { access_token } = done.json() as { access_token: string }
    for (const prefix of [V1, V2]) expect((await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(access_token) })).statusCode).toBe(200)
    // Single use: a spent token is dead even with another good code.
    expectError(await finish({ mfa_token: token, code: totpCode(secret, confirmedStep + 2) }), 401, 'Invalid or expired MFA token', 'invalid_mfa_token')
    expect(await eventsOf(who.user.id)).toEqual(expect.arrayContaining(['mfa_verified:totp', 'login_succeeded:password']))
  })

  it('accepts one step of drift, refuses two, and refuses a code whose step was used (no replay)', async () => {
    const who = await seedAndLogin(t.app)
    const { secret, confirmedStep } = await enrolTotp(t.app, who.headers)
    const now = confirmedStep + 1
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, now - 2) }), 401, 'Invalid code', 'invalid_mfa_code')
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, now + 2) }), 401, 'Invalid code', 'invalid_mfa_code')
    // The code that confirmed the authenticator is spent, and so is every step before it.
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, confirmedStep) }), 401, 'Invalid code', 'invalid_mfa_code')
    expect((await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, now + 1) })).statusCode).toBe(200)
    // Now + 1 was used: now's code, still inside its window, is refused, and so is now + 1 again.
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, now) }), 401, 'Invalid code', 'invalid_mfa_code')
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), code: totpCode(secret, now + 1) }), 401, 'Invalid code', 'invalid_mfa_code')
    expect(await eventsOf(who.user.id)).toContain('mfa_failed:totp')
  })

  it('takes each recovery code once, however it is typed', async () => {
    const who = await seedAndLogin(t.app)
    const { recoveryCodes } = await enrolTotp(t.app, who.headers)
    const code = recoveryCodes[3]!
    const typed = ` ${code.toUpperCase().replace('-', ' ')} `
    expect((await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), recovery_code: typed })).statusCode).toBe(200)
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), recovery_code: code }), 401, 'Invalid code', 'invalid_mfa_code')
    expect((await t.app.inject({ url: `${V2}/users/me/mfa`, headers: who.headers })).json().recovery_codes_left).toBe(9)
    expect(await eventsOf(who.user.id)).toEqual(expect.arrayContaining(['recovery_code_used:recovery_code', 'mfa_failed:recovery_code']))
  })

  it('ends an mfa_token after five wrong codes, even when they arrive at once, and after five minutes', async () => {
    const who = await seedAndLogin(t.app)
    const { secret, confirmedStep } = await enrolTotp(t.app, who.headers)
    const token = mfaTokenOf(await passwordLogin(who))
    const wrong = await Promise.all(Array.from({ length: 12 }, () => finish({ mfa_token: token, code: aWrongCode(secret) })))
    expect(wrong.filter((response) => response.json().code === 'invalid_mfa_code')).toHaveLength(5)
    expect(wrong.filter((response) => response.json().code === 'invalid_mfa_token')).toHaveLength(7)
    const row = await t.db.selectFrom('one_time_secrets').select('attempts').where('user_id', '=', who.user.id).where('purpose', '=', 'mfa').executeTakeFirstOrThrow()
    expect(row.attempts).toBe(5)
    expectError(await finish({ mfa_token: token, code: totpCode(secret, confirmedStep + 1) }), 401, 'Invalid or expired MFA token', 'invalid_mfa_token')

    const late = mfaTokenOf(await passwordLogin(who))
    await t.db.updateTable('one_time_secrets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', who.user.id).where('purpose', '=', 'mfa').where('used_at', 'is', null).execute()
    expectError(await finish({ mfa_token: late, code: totpCode(secret, confirmedStep + 1) }), 401, undefined, 'invalid_mfa_token')
    expectError(await finish({ mfa_token: 'no-such-token', code: '123456' }), 401, undefined, 'invalid_mfa_token')
  })

  it("binds the mfa_token to its user: another account's code does not finish it", async () => {
    const victim = await seedAndLogin(t.app)
    const attacker = await seedAndLogin(t.app)
    await enrolTotp(t.app, victim.headers)
    const own = await enrolTotp(t.app, attacker.headers)
    const token = mfaTokenOf(await passwordLogin(victim))
    expectError(await finish({ mfa_token: token, code: totpCode(own.secret, own.confirmedStep + 1) }), 401, 'Invalid code', 'invalid_mfa_code')
    expectError(await finish({ mfa_token: token, recovery_code: own.recoveryCodes[0]! }), 401, 'Invalid code', 'invalid_mfa_code')
  })

  it('steps up a sign-in by a mailed code and by a mailed link', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const { secret, confirmedStep } = await enrolTotp(t.app, who.headers)
    const mails = async () => {
      const before = smtp.messages.filter((message) => message.to === who.user.email).length
      expect((await post(`${V2}/login/email`, { email: who.user.email })).statusCode).toBe(202)
      return (await smtp.waitFor(who.user.email, before + 1))[before]!
    }
    const byCode = mfaTokenOf(await post(`${V2}/login/email/confirm`, { email: who.user.email, code: codeIn(await mails()) }))
    const byLink = mfaTokenOf(await post(`${V2}/login/email/confirm`, { token: tokenIn(await mails()) }))
    expect((await finish({ mfa_token: byLink, code: totpCode(secret, confirmedStep + 1) })).statusCode).toBe(200)
    const tokens = await t.db.selectFrom('one_time_secrets').select('data').where('user_id', '=', who.user.id).where('purpose', '=', 'mfa').execute()
    expect(tokens.map((row) => (JSON.parse(row.data ?? '{}') as { method: string }).method).sort()).toEqual(['email_code', 'email_link'])
    expect(byCode).not.toBe(byLink)
    expect(await eventsOf(who.user.id)).toContain('login_succeeded:email_link')
  })

  it("asks the email sign-in page for the second factor, and goes on to redirect_to after it", async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const { secret, confirmedStep } = await enrolTotp(t.app, who.headers)
    const before = smtp.messages.filter((message) => message.to === who.user.email).length
    expect((await post(`${V2}/login/email`, { email: who.user.email })).statusCode).toBe(202)
    const mail = (await smtp.waitFor(who.user.email, before + 1))[before]!
    const submit = (path: string, fields: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() })
    const asked = await submit('/account/email-login', { token: tokenIn(mail), redirect_to: 'http://localhost:8000/home' })
    expect(asked.statusCode, asked.body).toBe(200)
    expect(asked.headers['content-type']).toContain('text/html')
    expect(asked.cookies.map((cookie) => cookie.name)).not.toContain('refresh_token')
    const mfaToken = /name="mfa_token" value="([^"]+)"/.exec(asked.body)?.[1]
    expect(mfaToken).toBeTruthy()
    const wrong = await submit('/account/email-login/mfa', { mfa_token: mfaToken!, code: aWrongCode(secret), redirect_to: 'http://localhost:8000/home' })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.body).toContain('Invalid code')
    const done = await submit('/account/email-login/mfa', { mfa_token: mfaToken!, code: totpCode(secret, confirmedStep + 1), redirect_to: 'http://localhost:8000/home' })
    expect(done.statusCode, done.body).toBe(303)
    expect(done.headers.location).toBe('http://localhost:8000/home')
    expect(done.cookies.map((cookie) => cookie.name).sort()).toEqual(['device', 'refresh_token'])
  })

  it('sends an account whose second factor is a passkey from the email sign-in page to the security page', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const authenticator = new SoftwareAuthenticator('localhost', 'http://localhost:8000')
    const options = (await post(`${V2}/users/me/passkeys/options`, {}, who.headers)).json()
    expect((await post(`${V2}/users/me/passkeys`, { response: authenticator.register(options), name: 'Key' }, who.headers)).statusCode).toBe(201)
    const before = smtp.messages.filter((message) => message.to === who.user.email).length
    expect((await post(`${V2}/login/email`, { email: who.user.email })).statusCode).toBe(202)
    const mail = (await smtp.waitFor(who.user.email, before + 1))[before]!
    const asked = await t.app.inject({ method: 'POST', url: '/account/email-login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token: tokenIn(mail) }).toString() })
    expect(asked.statusCode).toBe(200)
    expect(asked.body).toContain('href="/account/security"')
    expect(asked.cookies.map((cookie) => cookie.name)).not.toContain('refresh_token')
  })

  it('keeps the second factor through a password reset: the reset proves the mailbox, not the device', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    await enrolTotp(t.app, who.headers)
    const before = smtp.messages.filter((message) => message.to === who.user.email).length
    await post(`${V2}/password-reset`, { email: who.user.email })
    const mail = (await smtp.waitFor(who.user.email, before + 1))[before]!
    expect((await post(`${V2}/password-reset/confirm`, { token: tokenIn(mail), new_password: 'a brand new secret 7' })).statusCode).toBe(200)
    mfaTokenOf(await post(`${V2}/login`, { username: who.user.username, password: 'a brand new secret 7' }))
  })
})

describe('changing second factors', () => {
  it('makes new recovery codes for a current TOTP code, and the old set dies', async () => {
    const who = await seedAndLogin(t.app)
    const { secret, confirmedStep, recoveryCodes } = await enrolTotp(t.app, who.headers)
    expectError(await post(`${V2}/users/me/mfa/recovery-codes`, { code: totpCode(secret, confirmedStep) }, who.headers), 400, 'Invalid code', 'invalid_mfa_code')
    const fresh = await post(`${V2}/users/me/mfa/recovery-codes`, { code: totpCode(secret, confirmedStep + 1) }, who.headers)
    expect(fresh.statusCode, fresh.body).toBe(200)
    const codes = (fresh.json() as { recovery_codes: string[] }).recovery_codes
    expect(codes).toHaveLength(10)
    expectError(await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), recovery_code: recoveryCodes[0]! }), 401, 'Invalid code', 'invalid_mfa_code')
    expect((await finish({ mfa_token: mfaTokenOf(await passwordLogin(who)), recovery_code: codes[0]! })).statusCode).toBe(200)
    expect(await eventsOf(who.user.id)).toContain('recovery_codes_regenerated:totp')
  })

  it('turns TOTP off for a recovery code (not for a wrong one); sign-in then asks nothing more', async () => {
    const who = await seedAndLogin(t.app)
    const { recoveryCodes } = await enrolTotp(t.app, who.headers)
    const remove = (code: string) => t.app.inject({ method: 'DELETE', url: `${V2}/users/me/mfa/totp`, headers: who.headers, payload: { code } })
    expectError(await remove('aaaaa-aaaaa'), 400, 'Invalid code', 'invalid_mfa_code')
    expectError(await remove('123456'), 400, 'Invalid code', 'invalid_mfa_code')
    expect((await remove(recoveryCodes[1]!)).statusCode).toBe(200)
    expect((await passwordLogin(who)).statusCode).toBe(200)
    expect(await t.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', who.user.id).execute()).toEqual([])
    expectError(await remove(recoveryCodes[2]!), 409, undefined, 'mfa_not_enabled')
    expect(await eventsOf(who.user.id)).toContain('mfa_disabled:recovery_code')
  })
})

describe("a superuser's reset", () => {
  it("shows a user's factors, removes them and ends their sessions; ordinary users are refused", async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const who = await seedAndLogin(t.app)
    await enrolTotp(t.app, who.headers)
    const shown = await t.app.inject({ url: `${V2}/admin/users/${who.user.id}/mfa`, headers: admin.headers })
    expect(shown.json()).toMatchObject({ totp: { enabled: true }, recovery_codes_left: 10 })
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${admin.user.id}/mfa`, headers: who.headers }), 403)
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/999999/mfa`, headers: admin.headers }), 404)

    const reset = await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${who.user.id}/mfa`, headers: admin.headers })
    expect(reset.statusCode, reset.body).toBe(200)
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: who.headers }), 401)
    expect((await passwordLogin(who)).statusCode).toBe(200)
    expect(await eventsOf(who.user.id)).toEqual(expect.arrayContaining(['mfa_reset_by_admin:', 'session_revoked:']))
  })
})

describe('the per-account budget of second-factor attempts', () => {
  let limited: TestApp
  beforeAll(async () => {
    limited = await createTestApp({ MFA_RATE_LIMIT: '3' })
  })
  afterAll(() => limited.close())

  it("stops a stranger who holds the password, and the owner's browser that signed in before keeps its own budget", async () => {
    const owner = await seedAndLogin(limited.app)
    const knownBrowser = await passwordLogin(owner, V2, limited.app)
    const device = knownBrowser.cookies.find((cookie) => cookie.name === 'device')!.value
    const { secret, confirmedStep } = await enrolTotp(limited.app, owner.headers)

    // Each guess from another address: the account's budget, not an address's, runs out.
    const from = (attempt: number) => ({ remoteAddress: `10.0.0.${attempt + 1}` })
    const guess = (token: string, code: string, attempt: number) => limited.app.inject({ method: 'POST', url: `${V2}/login/mfa`, payload: { mfa_token: token, code }, ...from(attempt) })
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = mfaTokenOf(await passwordLogin(owner, V2, limited.app))
      expectError(await guess(token, aWrongCode(secret), attempt), 401, undefined, 'invalid_mfa_code')
    }
    const stranger = mfaTokenOf(await passwordLogin(owner, V2, limited.app))
    const refused = await guess(stranger, totpCode(secret, confirmedStep + 1), 3)
    expectError(refused, 429, undefined, 'rate_limited')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)

    const own = mfaTokenOf(await passwordLogin(owner, V2, limited.app))
    const done = await finish({ mfa_token: own, code: totpCode(secret, confirmedStep + 1) }, { cookie: `device=${device}` }, limited.app)
    expect(done.statusCode, done.body).toBe(200)
  })
})

describe('REQUIRE_MFA_FOR_SUPERUSERS', () => {
  let strict: TestApp
  beforeAll(async () => {
    strict = await createTestApp({ REQUIRE_MFA_FOR_SUPERUSERS: 'true' })
  })
  afterAll(() => strict.close())

  it('refuses a superuser the admin routes until they enrol, and still lets them enrol and sign in with the second factor', async () => {
    // Every route only superusers may use is walked in test/api/route-table.test.ts.
    const admin = await seedAndLogin(strict.app, {}, { superuser: true })
    const overview = (headers: Record<string, string>) => strict.app.inject({ url: `${V2}/admin/overview`, headers })
    const refused = await overview(admin.headers)
    expectError(refused, 403, 'Second factor required for superusers', 'mfa_enrolment_required')
    const { secret, confirmedStep } = await enrolTotp(strict.app, admin.headers)
    expect((await overview(admin.headers)).statusCode).toBe(200)
    const token = mfaTokenOf(await passwordLogin(admin, V2, strict.app))
    const signedIn = await finish({ mfa_token: token, code: totpCode(secret, confirmedStep + 1) }, {}, strict.app)
    expect((await overview(bearer(signedIn.json().access_token))).statusCode).toBe(200)
  })
})

describe('across SECRET_KEY rotation and app instances', () => {
  const OLD_KEY = 'the-old-signing-key-that-is-long-enough-0001'
  const NEW_KEY = 'the-new-signing-key-that-is-long-enough-0002'
  let first: TestApp
  beforeAll(async () => {
    first = await createTestApp({ SECRET_KEY: OLD_KEY })
  })
  afterAll(() => first.close())

  async function startWith(env: Record<string, string>) {
    const config = loadConfig({ ...first.env, ...env })
    const app = await buildApp({ config, secretKey: config.secretKey ?? '', prepare: false })
    await app.ready()
    return app
  }

  it('keeps TOTP working under a new key with the old one as previous, sealing the secret again under the new key', async () => {
    const who = await seedAndLogin(first.app)
    const { secret, confirmedStep } = await enrolTotp(first.app, who.headers)
    const sealedBefore = (await first.db.selectFrom('totp_factors').select('secret').where('user_id', '=', who.user.id).executeTakeFirstOrThrow()).secret
    const rotated = await startWith({ SECRET_KEY: NEW_KEY, SECRET_KEY_PREVIOUS: OLD_KEY })
    try {
      const token = mfaTokenOf(await passwordLogin(who, V2, rotated))
      expect((await finish({ mfa_token: token, code: totpCode(secret, confirmedStep + 1) }, {}, rotated)).statusCode).toBe(200)
      const sealedAfter = (await first.db.selectFrom('totp_factors').select('secret').where('user_id', '=', who.user.id).executeTakeFirstOrThrow()).secret
      expect(sealedAfter.split('.')[1]).not.toBe(sealedBefore.split('.')[1])
    } finally {
      await rotated.close()
    }
  })

  it('refuses in a second instance a code the first one took, and a challenge the first one spent', async () => {
    const who = await seedAndLogin(first.app)
    const { secret, confirmedStep } = await enrolTotp(first.app, who.headers)
    const second = await startWith({})
    try {
      const token = mfaTokenOf(await passwordLogin(who, V2, first.app))
      const code = totpCode(secret, confirmedStep + 1)
      const [a, b] = await Promise.all([finish({ mfa_token: token, code }, {}, first.app), finish({ mfa_token: token, code }, {}, second)])
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 401])
      const again = mfaTokenOf(await passwordLogin(who, V2, second))
      expectError(await finish({ mfa_token: again, code }, {}, second), 401, 'Invalid code', 'invalid_mfa_code')
    } finally {
      await second.close()
    }
  })
})
