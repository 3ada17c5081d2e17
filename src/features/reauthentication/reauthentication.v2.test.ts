// A recent proof of identity for every new way in and every change of a second factor: which
// sign-ins count as one (password, second factor, passkey; not an email link or a provider), the
// proofs POST /reauthenticate takes for each kind of account (its second factor when it has one,
// else its password, else a mailed code), and, generated from the route table, every route that
// adds a way in refusing a session without one. Enrolling a second factor ends the other sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { SoftwareAuthenticator } from '../../../test/helpers/authenticator.js'
import { expectError } from '../../../test/helpers/expect.js'
import { mailedCode, reauthenticate } from '../../../test/helpers/reauthenticate.js'
import { enrolTotp, totpCode } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, seedUser, V2 } from '../../../test/helpers/users.js'

const ORIGIN = 'http://localhost:8000'
let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: ORIGIN, EMAIL_LOGIN: 'on' })
})
afterAll(() => t.close())

const post = (url: string, headers: Record<string, string>, payload: object = {}) => t.app.inject({ method: 'POST', url: `${V2}${url}`, headers, payload })
const freshness = async (headers: Record<string, string>) => (await t.app.inject({ url: `${V2}/reauthenticate`, headers })).json() as { fresh_until: string | null; methods: string[] }
const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })
/** The session of `headers` proved itself longer ago than the 10 minutes a proof lasts. */
async function age(who: LoggedIn): Promise<void> {
  const sessions = (await t.app.inject({ url: `${V2}/sessions`, headers: who.headers })).json() as { id: string; current: boolean }[]
  const current = sessions.find((session) => session.current)!
  await t.db.updateTable('sessions').set({ proven_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', current.id).execute()
}

async function registerPasskey(who: LoggedIn): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
  const options = await post('/users/me/passkeys/options', who.headers)
  expect(options.statusCode, options.body).toBe(200)
  const registered = await post('/users/me/passkeys', who.headers, { response: authenticator.register(options.json()), name: 'Key' })
  expect(registered.statusCode, registered.body).toBe(201)
  return authenticator
}

describe('which sign-ins count as a proof', () => {
  it('a password sign-in does, for 10 minutes; a mailed code does not', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const fresh = await freshness(who.headers)
    expect(fresh.methods).toEqual(['password'])
    const until = new Date(fresh.fresh_until!).getTime()
    expect(until).toBeGreaterThan(Date.now() + 9 * 60_000)
    expect(until).toBeLessThanOrEqual(Date.now() + 10 * 60_000)

    await post('/login/email', {}, { email: who.user.email })
    await t.app.services.emailLogin.settle()
    const mail = await t.db.selectFrom('mail_outbox').select('text_body').where('recipient', '=', who.user.email).orderBy('created_at', 'desc').executeTakeFirstOrThrow()
    const byCode = await post('/login/email/confirm', {}, { email: who.user.email, code: /\b(\d{6})\b/.exec(mail.text_body)![1] })
    expect(byCode.statusCode, byCode.body).toBe(200)
    const byMail = bearer(byCode.json().access_token)
    expect((await freshness(byMail)).fresh_until).toBeNull()
    expectError(await post('/api-keys/', byMail, { name: 'k', scopes: ['read'] }), 403, undefined, 'reauthentication_required')
  })

  it('on an account with a second factor, only that factor or a passkey does', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const { secret, confirmedStep, recoveryCodes } = await enrolTotp(t.app, who.headers)
    await age(who)
    expect(await freshness(who.headers)).toEqual({ fresh_until: null, methods: ['totp', 'recovery_code'] })
    const refused = await post('/reauthenticate', who.headers, { password: who.user.password })
    expectError(refused, 409, undefined, 'reauthentication_method_unavailable')
    expect(refused.json().methods).toEqual(['totp', 'recovery_code'])
    expectError(await post('/reauthenticate', who.headers, { code: totpCode(secret, confirmedStep) }), 400, 'Invalid code', 'invalid_mfa_code')
    const proved = await post('/reauthenticate', who.headers, { code: totpCode(secret, confirmedStep + 1) })
    expect(proved.statusCode, proved.body).toBe(200)
    expect(proved.json().fresh_until).not.toBeNull()
    await age(who)
    expect((await post('/reauthenticate', who.headers, { recovery_code: recoveryCodes[0]! })).statusCode).toBe(200)
    const events = await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', who.user.id).where('type', 'in', ['reauthenticated', 'reauthentication_failed']).execute()
    expect(events.map((event) => `${event.type}:${event.method}`).sort()).toEqual(['reauthenticated:recovery_code', 'reauthenticated:totp', 'reauthentication_failed:totp'])
  })

  it('a passkey proves it, with a challenge made for this account', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const authenticator = await registerPasskey(who)
    const other = await seedAndLogin(t.app, {}, { verified: true })
    await registerPasskey(other)
    await age(who)
    expect((await freshness(who.headers)).methods).toEqual(['passkey'])
    // A challenge made for another account proves nothing here.
    const othersOptions = (await post('/reauthenticate/passkey/options', other.headers)).json()
    expectError(await post('/reauthenticate', who.headers, { passkey_response: authenticator.authenticate(othersOptions) }), 400, 'Invalid passkey', 'invalid_passkey')
    const options = (await post('/reauthenticate/passkey/options', who.headers)).json()
    const response = authenticator.authenticate(options)
    expect((await post('/reauthenticate', who.headers, { passkey_response: response })).statusCode).toBe(200)
    // Its challenge works once.
    await age(who)
    expectError(await post('/reauthenticate', who.headers, { passkey_response: response }), 400, 'Invalid passkey', 'invalid_passkey')
  })

  it('an account with no password and no second factor proves it with a mailed code, five tries a code', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    await t.db.updateTable('users').set({ hashed_password: '!' }).where('id', '=', who.user.id).execute()
    await age(who)
    expect(await freshness(who.headers)).toEqual({ fresh_until: null, methods: ['email_code'] })
    expectError(await post('/reauthenticate', who.headers, { password: who.user.password }), 409, undefined, 'reauthentication_method_unavailable')
    const code = await mailedCode(t, who.headers)
    const wrong = code === '000000' ? '111111' : '000000'
    for (let attempt = 0; attempt < 5; attempt++) expectError(await post('/reauthenticate', who.headers, { email_code: wrong }), 400, undefined, 'invalid_code')
    expectError(await post('/reauthenticate', who.headers, { email_code: code }), 400, undefined, 'invalid_code')
    await reauthenticate(t, who.headers)
    expect((await freshness(who.headers)).fresh_until).not.toBeNull()
    // An account with a password is not mailed a code.
    const withPassword = await seedAndLogin(t.app, {}, { verified: true })
    expectError(await post('/reauthenticate/email', withPassword.headers), 409, undefined, 'reauthentication_method_unavailable')
  })

  it('counts wrong passwords against the login budget, and refuses API keys', async () => {
    const limited = await createTestApp({ LOGIN_RATE_LIMIT: '3' })
    try {
      const who = await seedAndLogin(limited.app, {}, { verified: true })
      const statuses = []
      for (let attempt = 0; attempt < 4; attempt++) statuses.push((await limited.app.inject({ method: 'POST', url: `${V2}/reauthenticate`, headers: who.headers, payload: { password: 'not it at all' } })).statusCode)
      expect(statuses).toEqual([400, 400, 429, 429])
      const key = (await limited.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: who.headers, payload: { name: 'k', scopes: ['read', 'write'] } })).json().key as string
      expectError(await limited.app.inject({ method: 'POST', url: `${V2}/reauthenticate`, headers: { 'x-api-key': key }, payload: { password: who.user.password } }), 403, undefined, 'api_key_not_allowed')
    } finally {
      await limited.close()
    }
  })
})

describe('the routes that add a way in, from the route table', () => {
  const placeholders: Record<string, string> = { identity: 'corp', passkey_id: 'no-such-passkey' }
  const urlOf = (url: string) => url.replace(/:(\w+)/g, (_, name: string) => placeholders[name] ?? '1')

  it('every protected route that changes something says whether it adds a way in', () => {
    const changing = t.app.routeTable.filter((route) => route.protectedRoute && !['GET', 'HEAD'].includes(route.method))
    expect(changing.length).toBeGreaterThan(40)
    expect(changing.filter((route) => route.wayIn === undefined)).toEqual([])
    const adding = changing.filter((route) => route.wayIn === 'adds').map((route) => `${route.method} ${route.url}`)
    expect(adding).toEqual(
      expect.arrayContaining([
        'POST /api/v2/users/me/passkeys/options',
        'POST /api/v2/users/me/passkeys',
        'POST /api/v2/users/me/identities/:identity',
        'POST /api/v2/users/me/mfa/totp',
        'POST /api/v2/users/me/mfa/totp/confirm',
        'POST /api/v2/api-keys',
        'POST /services/v1/api-keys',
      ]),
    )
  })

  it('refuses every one of them, and every route that removes a second factor, to a session without a recent proof', async () => {
    const needing = t.app.routeTable.filter((route) => route.reauthenticate)
    expect(needing.map((route) => `${route.method} ${route.url}`)).toContain('DELETE /api/v2/users/me/passkeys/:passkey_id')
    expect(needing.every((route) => route.wayIn === 'adds' || route.method === 'DELETE' || route.method === 'POST')).toBe(true)
    const who = await seedAndLogin(t.app, {}, { verified: true })
    // Superusers' routes (support impersonation) refuse anyone else first: a superuser's stale session tries them.
    const superuser = await seedAndLogin(t.app, {}, { superuser: true, verified: true })
    await age(who)
    await age(superuser)
    const missed: string[] = []
    for (const route of needing) {
      const request = (caller: LoggedIn) => t.app.inject({ method: route.method as 'POST', url: urlOf(route.url), headers: caller.headers, ...(route.method === 'DELETE' ? {} : { payload: {} }) })
      let answer = await request(who)
      if (answer.statusCode === 403 && answer.json().code === 'forbidden') answer = await request(superuser)
      if (answer.statusCode !== 403 || answer.json().code !== 'reauthentication_required') missed.push(`${route.method} ${route.url}: ${answer.statusCode}`)
    }
    expect(missed).toEqual([])
    // Fresh again, no route refuses for want of a proof.
    await reauthenticate(t, who.headers, { password: who.user.password })
    for (const route of needing) {
      const answer = await t.app.inject({ method: route.method as 'POST', url: urlOf(route.url), headers: who.headers, ...(route.method === 'DELETE' ? {} : { payload: {} }) })
      expect(answer.json().code, `${route.method} ${route.url}`).not.toBe('reauthentication_required')
    }
  })

  it('refuses to start when a protected route does not say whether it adds a way in', async () => {
    await expect(
      createTestApp({}, (app) => {
        app.post('/undeclared', { config: { protectedRoute: true }, onRequest: [app.authenticate] }, async () => ({}))
      }),
    ).rejects.toThrow(/POST \/undeclared must declare whether it adds a way into the account/)
  })
})

describe('a token held for a moment is not a way in', () => {
  it('cannot add a passkey, link an identity, turn on an authenticator app or mint an API key without a recent proof', async () => {
    const victim = await seedAndLogin(t.app, {}, { verified: true })
    await age(victim)
    const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
    expectError(await post('/users/me/passkeys/options', victim.headers), 403, undefined, 'reauthentication_required')
    // Options the owner asked for earlier do not help either: registering asks again.
    const challenge = await t.app.services.passkeys.registrationOptions(victim.user)
    expectError(await post('/users/me/passkeys', victim.headers, { response: authenticator.register(challenge), name: 'Mine now' }), 403, undefined, 'reauthentication_required')
    expectError(await post('/users/me/mfa/totp', victim.headers), 403, undefined, 'reauthentication_required')
    expectError(await post('/api-keys/', victim.headers, { name: 'k', scopes: ['read'] }), 403, undefined, 'reauthentication_required')
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', victim.user.id).execute()).toEqual([])
  })

  it('cannot remove the only passkey, a second factor, without proving a second factor', async () => {
    const who = await seedAndLogin(t.app, {}, { verified: true })
    const authenticator = await registerPasskey(who)
    const [passkey] = (await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json() as { id: string }[]
    // Someone holding this session's token later, when its proof is old.
    await age(who)
    const removal = await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${passkey!.id}`, headers: who.headers })
    expectError(removal, 403, undefined, 'reauthentication_required')
    expect(removal.json().methods).toEqual(['passkey'])
    const options = (await post('/reauthenticate/passkey/options', who.headers)).json()
    expect((await post('/reauthenticate', who.headers, { passkey_response: authenticator.authenticate(options) })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${passkey!.id}`, headers: who.headers })).statusCode).toBe(200)
  })
})

describe('enrolling a second factor', () => {
  it('ends every other session: one opened with the password alone does not keep refreshing', async () => {
    const user = await seedUser(t.app, {}, { verified: true })
    const login = async () => (await post('/login', {}, { username: user.username, password: user.password })).json() as { access_token: string; refresh_token: string }
    const here = await login()
    const elsewhere = await login()
    await enrolTotp(t.app, bearer(here.access_token))
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(elsewhere.access_token) })).statusCode).toBe(401)
    expect((await post('/refresh', {}, { refresh_token: elsewhere.refresh_token })).statusCode).toBe(401)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(here.access_token) })).statusCode).toBe(200)
  })

  it("the account's first passkey ends every other session too", async () => {
    const user = await seedUser(t.app, {}, { verified: true })
    const login = async () => (await post('/login', {}, { username: user.username, password: user.password })).json() as { access_token: string }
    const here = await login()
    const elsewhere = await login()
    await registerPasskey({ user, accessToken: here.access_token, refreshToken: '', headers: bearer(here.access_token) })
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(elsewhere.access_token) })).statusCode).toBe(401)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(here.access_token) })).statusCode).toBe(200)
  })
})
