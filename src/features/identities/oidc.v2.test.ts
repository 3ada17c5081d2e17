// Sign-in through an OpenID Connect provider, end to end over HTTP against a real OpenID
// Provider in the test process (oidc-provider): the redirect with state, nonce and PKCE, the
// provider's own login form, the callback, the one-time code and its exchange; the linking rules
// (verified and unverified emails on both sides); replayed and foreign state, a tampered nonce or
// verifier, reused and expired codes, redirect_to off the list, the provider down.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { createClient, unwrap } from '../../../clients/typescript/src/index.js'
import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.js'
import { startOidcProvider } from '../../../test/helpers/oidc-provider.js'
import { freePort } from '../../../test/helpers/process.js'
import { reauthenticate } from '../../../test/helpers/reauthenticate.js'
import { enrolTotp, totpCode } from '../../../test/helpers/totp.js'
import { seedAndLogin, seedUser, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../logger.js'
import { pkceChallengeOf } from './identities.service.js'

const PUBLIC_URL = 'http://localhost:8000'
const FRONTEND = 'http://localhost:5173'
const CALLBACK = `${PUBLIC_URL}${V2}/auth/corp/callback`
const BACKUP_CALLBACK = `${PUBLIC_URL}${V2}/auth/backup/callback`

let op: TestOidcProvider
let t: TestApp
let subjects = 0
beforeAll(async () => {
  op = await startOidcProvider([CALLBACK, BACKUP_CALLBACK])
  t = await createTestApp(providerEnv(op))
})
afterAll(async () => {
  await t.close()
  await op.stop()
})

function providerEnv(provider: TestOidcProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_URL,
    AUTH_REDIRECT_ORIGINS: FRONTEND,
    OIDC_CORP_ISSUER: provider.issuer,
    OIDC_CORP_CLIENT_ID: provider.clientId,
    OIDC_CORP_CLIENT_SECRET: provider.clientSecret,
    OIDC_CORP_LABEL: 'Corp SSO',
    // The same provider under a second name: a user with two identities.
    OIDC_PROVIDERS: 'corp,backup',
    OIDC_BACKUP_ISSUER: provider.issuer,
    OIDC_BACKUP_CLIENT_ID: provider.clientId,
    OIDC_BACKUP_CLIENT_SECRET: provider.clientSecret,
    ...extra,
  }
}

/** A new person at the provider. */
function person(account: { email?: string; email_verified?: boolean; preferred_username?: string } = {}): string {
  const subject = `person-${++subjects}-${Date.now()}`
  op.accounts.set(subject, { email: `${subject}@corp.example`, email_verified: true, name: 'Grace Hopper', preferred_username: 'grace', ...account })
  return subject
}

/** Starts a sign-in in "the browser": the provider's URL and the flow cookie. */
async function authorize(app = t, redirectTo = `${FRONTEND}/signed-in`, query = '') {
  const started = await app.app.inject({ url: `${V2}/auth/corp/authorize?redirect_to=${encodeURIComponent(redirectTo)}${query}` })
  expect(started.statusCode, started.body).toBe(302)
  const cookie = started.cookies.find((candidate) => candidate.name === 'sign_in_flow')
  expect(cookie?.httpOnly).toBe(true)
  return { providerUrl: started.headers.location as string, binding: cookie!.value }
}

/** The provider's redirect back, delivered to the service with `binding` as the flow cookie. */
async function callback(app: TestApp, returned: URL, binding: string | undefined) {
  return app.app.inject({ url: returned.pathname + returned.search, ...(binding === undefined ? {} : { cookies: { sign_in_flow: binding } }) })
}

/** The hand-off cookie each code's callback set on "the browser", by code. */
const handoffCookies = new Map<string, string>()

/** A whole sign-in up to where the browser lands on the frontend (keeping the hand-off cookie the callback set). */
async function signIn(subject: string, app = t, query = ''): Promise<URL> {
  const { providerUrl, binding } = await authorize(app, undefined, query)
  const returned = await op.signIn(providerUrl, subject)
  const answer = await callback(app, returned, binding)
  expect(answer.statusCode, answer.body).toBe(302)
  const landed = new URL(answer.headers.location as string)
  const handoff = answer.cookies.find((cookie) => cookie.name === 'sign_in_handoff')
  const code = landed.searchParams.get('code')
  if (code && handoff) {
    expect(handoff).toMatchObject({ httpOnly: true, path: `${V2}/auth/token`, maxAge: 60 })
    handoffCookies.set(code, handoff.value)
  }
  return landed
}

/** The exchange from the browser the provider sent back (its hand-off cookie; `handoff` another one, or null for none), or with `body`'s verifier. */
function exchange(code: string, app = t, body: Record<string, string> = {}, handoff?: string | null) {
  const cookie = handoff === undefined ? handoffCookies.get(code) : (handoff ?? undefined)
  return app.app.inject({ method: 'POST', url: `${V2}/auth/token`, payload: { code, ...body }, ...(cookie === undefined ? {} : { cookies: { sign_in_handoff: cookie } }) })
}

async function tokensFor(subject: string) {
  const landed = await signIn(subject)
  const code = landed.searchParams.get('code')
  expect(code, landed.href).toBeTruthy()
  const answer = await exchange(code!)
  expect(answer.statusCode, answer.body).toBe(200)
  return answer.json() as { access_token: string }
}

const me_ = async (tokens: { access_token: string }) => me(tokens.access_token)
const me = async (accessToken: string) => (await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${accessToken}` } })).json()

describe('sign-in through an OpenID Connect provider', () => {
  it('lists the discovered providers for buttons', async () => {
    expect((await t.app.inject({ url: `${V2}/auth/providers` })).json()).toEqual([
      { name: 'corp', label: 'Corp SSO' },
      { name: 'backup', label: 'backup' },
    ])
  })

  it('sends the browser to the provider with state, nonce and PKCE (S256)', async () => {
    const { providerUrl } = await authorize()
    const url = new URL(providerUrl)
    expect(url.origin).toBe(op.issuer)
    for (const parameter of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(parameter)).toBeTruthy()
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK)
    expect(url.searchParams.get('scope')).toBe('openid email profile')
  })

  it('creates a verified user at the first sign-in, finds it at the second, and logs the method', async () => {
    const subject = person()
    const first = await tokensFor(subject)
    const user = await me(first.access_token)
    expect(user).toMatchObject({ username: 'grace', name: 'Grace Hopper', email: `${subject}@corp.example`, is_verified: true })
    const second = await tokensFor(subject)
    expect((await me(second.access_token)).id).toBe(user.id)
    const identities = await t.app.inject({ url: `${V2}/users/me/identities`, headers: { authorization: `Bearer ${second.access_token}` } })
    expect(identities.json()).toEqual([{ id: expect.any(String), provider: 'corp', email: `${subject}@corp.example`, created_at: expect.any(String) }])
    const events = await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', user.id).orderBy('created_at').execute()
    expect(events.filter((event) => event.type === 'login_succeeded').map((event) => event.method)).toEqual(['oidc:corp', 'oidc:corp'])
    expect(events.map((event) => event.type)).toContain('user_signed_up')
    // No password was set: no password logs in.
    const login = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: user.username, password: '!' } })
    expect(login.statusCode).toBe(401)
  })

  it('steps up a provider sign-in for an account with a second factor: the exchange answers mfa_required', async () => {
    const subject = person()
    const first = await tokensFor(subject)
    const headers = { authorization: `Bearer ${first.access_token}` }
    await reauthenticate(t, headers)
    const { secret, confirmedStep } = await enrolTotp(t.app, headers)
    const landed = await signIn(subject)
    const stepUp = await exchange(landed.searchParams.get('code')!)
    expectError(stepUp, 401, 'Second factor required', 'mfa_required')
    const { mfa_token } = stepUp.json() as { mfa_token: string }
    const done = await t.app.inject({ method: 'POST', url: `${V2}/login/mfa`, payload: { mfa_token, code: totpCode(secret, confirmedStep + 1) } })
    expect(done.statusCode, done.body).toBe(200)
    const user = await me(first.access_token)
    const methods = await t.db.selectFrom('security_events').select('method').where('user_id', '=', user.id).where('type', '=', 'login_succeeded').execute()
    expect(methods.map((row) => row.method)).toEqual(['oidc:corp', 'oidc:corp'])
  })

  it('makes the username unique when another account holds it', async () => {
    await seedUser(t.app, { username: 'taken_name' })
    const created = await me((await tokensFor(person({ preferred_username: 'Taken.Name' }))).access_token)
    expect(created.username).toMatch(/^taken_name_\d{5}$/)
  })

  it('links an account holding the email only when both sides have it verified', async () => {
    const verified = await seedUser(t.app)
    await t.db.updateTable('users').set({ is_verified: 1 }).where('id', '=', verified.id).execute()
    const linked = await me((await tokensFor(person({ email: verified.email, email_verified: true }))).access_token)
    expect(linked.id).toBe(verified.id)

    const unverifiedLocal = await seedUser(t.app)
    const refused = await signIn(person({ email: unverifiedLocal.email, email_verified: true }))
    expect(refused.searchParams.get('error')).toBe('account_exists')
    expect(refused.searchParams.get('code')).toBeNull()

    const verifiedLocal = await seedUser(t.app)
    await t.db.updateTable('users').set({ is_verified: 1 }).where('id', '=', verifiedLocal.id).execute()
    const unverifiedAtProvider = await signIn(person({ email: verifiedLocal.email, email_verified: false }))
    expect(unverifiedAtProvider.searchParams.get('error')).toBe('email_not_verified')
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', 'in', [unverifiedLocal.id, verifiedLocal.id]).execute()).toHaveLength(0)
  })

  it('creates no account, and links none, for an email the provider does not vouch for', async () => {
    const subject = person({ email_verified: false })
    const landed = await signIn(subject)
    expect(landed.searchParams.get('error')).toBe('email_not_verified')
    expect(landed.searchParams.get('code')).toBeNull()
    expect(await t.db.selectFrom('users').select('id').where('email', '=', `${subject}@corp.example`).execute()).toHaveLength(0)
  })

  it('makes no account with a reserved address, and links none by it (error=email_reserved)', async () => {
    // An account that took the address before it was reserved, verified: a provider vouching for it links nothing.
    const holder = await seedUser(t.app)
    await t.db.updateTable('users').set({ email: 'deleted-user@users.invalid', is_verified: 1 }).where('id', '=', holder.id).execute()
    for (const email of ['deleted-user@users.invalid', 'someone@Corp.INVALID']) {
      const landed = await signIn(person({ email, email_verified: true }))
      expect(landed.searchParams.get('error')).toBe('email_reserved')
      expect(landed.searchParams.get('code')).toBeNull()
    }
    expect(await t.db.selectFrom('users').select('id').where('email', '=', 'someone@Corp.INVALID').execute()).toHaveLength(0)
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', '=', holder.id).execute()).toHaveLength(0)
  })

  it('refuses a user deactivated since the identity was linked', async () => {
    const subject = person()
    const user = await me((await tokensFor(subject)).access_token)
    await t.db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute()
    expect((await signIn(subject)).searchParams.get('error')).toBe('account_disabled')
  })

  it('refuses a replayed state, a state another browser started, and a callback without the cookie', async () => {
    const subject = person()
    const { providerUrl, binding } = await authorize()
    const returned = await op.signIn(providerUrl, subject)
    expectError(await callback(t, returned, 'another-browser'), 400, 'Invalid or expired sign-in', 'invalid_state')
    // That try spent the flow: the right browser cannot finish it either.
    expectError(await callback(t, returned, binding), 400, 'Invalid or expired sign-in', 'invalid_state')

    const second = await authorize()
    const secondReturn = await op.signIn(second.providerUrl, subject)
    expectError(await callback(t, secondReturn, undefined), 400, 'Invalid or expired sign-in', 'invalid_state')
    const forged = new URL(secondReturn)
    forged.searchParams.set('state', 'forged')
    expectError(await callback(t, forged, second.binding), 400, 'Invalid or expired sign-in', 'invalid_state')

    // Mix-up: a flow started with one provider is never finished at another's callback.
    const third = await authorize()
    const thirdReturn = await op.signIn(third.providerUrl, subject)
    const elsewhere = await t.app.inject({ url: `${V2}/auth/other/callback${thirdReturn.search}`, cookies: { sign_in_flow: third.binding } })
    expectError(elsewhere, 400, 'Invalid or expired sign-in', 'invalid_state')
  })

  it('refuses an ID token whose nonce is not the flow\'s, and a code exchanged without its PKCE verifier', async () => {
    for (const tamper of [{ nonce: 'not-the-nonce-sent' }, { codeVerifier: 'x'.repeat(64) }]) {
      const subject = person()
      const { providerUrl, binding } = await authorize()
      const flows = await t.db.selectFrom('one_time_secrets').select(['secret_hash', 'data']).where('purpose', '=', 'provider_flow').where('used_at', 'is', null).execute()
      for (const flow of flows) {
        const data = { ...(JSON.parse(flow.data ?? '{}') as object), ...tamper }
        await t.db.updateTable('one_time_secrets').set({ data: JSON.stringify(data) }).where('secret_hash', '=', flow.secret_hash).execute()
      }
      const answer = await callback(t, await op.signIn(providerUrl, subject), binding)
      const landed = new URL(answer.headers.location as string)
      expect(landed.searchParams.get('error'), JSON.stringify(tamper)).toBe('invalid_response')
      const description = landed.searchParams.get('error_description') ?? ''
      expect(description).not.toContain(op.clientSecret)
      expect(description).not.toMatch(/\n|\s+at \S+ \(/)
    }
  })

  it('refuses an ID token for another audience or from another issuer, validly signed, or signed by a foreign key, and creates nothing', async () => {
    const forgeries: [string, (claims: Record<string, unknown>) => Record<string, unknown>][] = [
      ['another audience', (claims) => ({ ...claims, aud: 'another-client' })],
      ['another issuer', (claims) => ({ ...claims, iss: 'https://evil.example.net' })],
      ['expired', (claims) => ({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 })],
    ]
    try {
      for (const [name, rewrite] of forgeries) {
        op.forgeIdTokens(rewrite)
        const subject = person()
        const landed = await signIn(subject)
        expect(landed.searchParams.get('error'), name).toBe('invalid_response')
        expect(await t.db.selectFrom('users').select('id').where('email', '=', `${subject}@corp.example`).execute()).toHaveLength(0)
      }
    } finally {
      op.forgeIdTokens(undefined)
    }
    // Another user's subject in a token signed by a key the provider never published (the same
    // key id): openid-client checks the signature only with its non-repudiation checks on.
    const victim = person()
    const victimId = (await me_(await tokensFor(victim))).id
    // The claims carry the email, so nothing is asked of userinfo (which would name the real subject).
    op.forgeIdTokens((claims) => ({ ...claims, sub: victim, email: `${victim}@corp.example`, email_verified: true }), { foreignKey: true })
    try {
      const landed = await signIn(person())
      expect(landed.searchParams.get('error'), `a foreign signature: ${landed.searchParams.get('error_description')}`).toBe('invalid_response')
      expect(landed.searchParams.get('code')).toBeNull()
    } finally {
      op.forgeIdTokens(undefined)
    }
    const victimLogins = await t.db.selectFrom('security_events').select('id').where('user_id', '=', victimId).where('type', '=', 'login_succeeded').execute()
    expect(victimLogins).toHaveLength(1)
    // The same forging path, changing nothing, signs in: the refusals above are the claims'.
    op.forgeIdTokens((claims) => claims)
    try {
      expect((await signIn(person())).searchParams.get('code')).toBeTruthy()
    } finally {
      op.forgeIdTokens(undefined)
    }
  })

  it('hands off a code that works once, for 60 seconds', async () => {
    const landed = await signIn(person())
    const code = landed.searchParams.get('code')!
    expect(landed.origin + landed.pathname).toBe(`${FRONTEND}/signed-in`)
    const answer = await exchange(code)
    expect(answer.statusCode).toBe(200)
    expect(answer.cookies.map((cookie) => cookie.name).sort()).toEqual(['device', 'refresh_token', 'sign_in_handoff'])
    // The hand-off cookie is cleared by the exchange that used it.
    expect(answer.cookies.find((cookie) => cookie.name === 'sign_in_handoff')?.value).toBe('')
    expectError(await exchange(code), 400, 'Invalid or expired code', 'invalid_code')

    const late = (await signIn(person())).searchParams.get('code')!
    await t.db.updateTable('one_time_secrets').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('purpose', '=', 'sign_in_code').where('used_at', 'is', null).execute()
    expectError(await exchange(late), 400, 'Invalid or expired code', 'invalid_code')
    const crossSite = await t.app.inject({ method: 'POST', url: `${V2}/auth/token`, payload: { code }, headers: { origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' } })
    expectError(crossSite, 403, 'Cross-site request refused', 'cross_site_refused')
  })

  it('binds the hand-off code to the browser the provider sent back: one injected into another browser signs nobody in', async () => {
    // The attacker's own sign-in, up to their code; they send it to a victim's frontend.
    const attackerCode = (await signIn(person())).searchParams.get('code')!
    // The victim's browser holds no hand-off cookie, or one of its own sign-in's.
    expectError(await exchange(attackerCode, t, {}, null), 400, 'Invalid or expired code', 'invalid_code')
    const victimCode = (await signIn(person())).searchParams.get('code')!
    expectError(await exchange(attackerCode, t, {}, handoffCookies.get(victimCode)), 400, 'Invalid or expired code', 'invalid_code')
    // Refusals spent nothing: the browser that holds the code's cookie still signs in, once.
    expect((await exchange(attackerCode)).statusCode).toBe(200)
    expectError(await exchange(attackerCode), 400, 'Invalid or expired code', 'invalid_code')
  })

  it('binds the hand-off code to the PKCE verifier the frontend chose at authorize', async () => {
    const verifier = 'v'.repeat(20) + Date.now().toString(36).padEnd(30, 'x')
    const challenge = pkceChallengeOf(verifier)
    const landed = await signIn(person(), t, `&code_challenge=${challenge}&code_challenge_method=S256`)
    const code = landed.searchParams.get('code')!
    // With a challenge, no cookie is set: only the verifier trades the code.
    expect(handoffCookies.has(code)).toBe(false)
    expectError(await exchange(code), 400, 'Invalid or expired code', 'invalid_code')
    expectError(await exchange(code, t, { code_verifier: `${verifier}-not` }), 400, 'Invalid or expired code', 'invalid_code')
    expect((await exchange(code, t, { code_verifier: verifier })).statusCode).toBe(200)
    expectError(await exchange(code, t, { code_verifier: verifier }), 400, 'Invalid or expired code', 'invalid_code')
    // Only S256, and a challenge of its length.
    expectError(await t.app.inject({ url: `${V2}/auth/corp/authorize?redirect_to=${encodeURIComponent(FRONTEND)}&code_challenge=${challenge}&code_challenge_method=plain` }), 422)
    expectError(await t.app.inject({ url: `${V2}/auth/corp/authorize?redirect_to=${encodeURIComponent(FRONTEND)}&code_challenge=short` }), 422)
  })

  it('refuses a redirect_to off AUTH_REDIRECT_ORIGINS and an unknown provider', async () => {
    for (const redirect of ['https://evil.example.net/', 'http://localhost:5174/x', '/relative']) {
      expectError(await t.app.inject({ url: `${V2}/auth/corp/authorize?redirect_to=${encodeURIComponent(redirect)}` }), 400, /^Invalid redirect: /, 'invalid_redirect')
    }
    expectError(await t.app.inject({ url: `${V2}/auth/nobody/authorize?redirect_to=${encodeURIComponent(FRONTEND)}` }), 404, 'Provider not found', 'provider_not_found')
  })
})

describe('linking and unlinking while signed in', () => {
  const settings = `${FRONTEND}/settings`

  /** Asks for a link ticket as `headers`' user, opens it in the same browser, and signs in at the provider as `subject`. */
  async function link(headers: Record<string, string>, provider: string, subject: string): Promise<URL> {
    const asked = await t.app.inject({ method: 'POST', url: `${V2}/users/me/identities/${provider}`, headers, payload: { redirect_to: settings } })
    expect(asked.statusCode, asked.body).toBe(200)
    const authorizeUrl = new URL(asked.json().authorize_url)
    expect(authorizeUrl.origin).toBe(PUBLIC_URL)
    const ticketCookie = asked.cookies.find((cookie) => cookie.name === 'identity_link')!
    const started = await t.app.inject({ url: authorizeUrl.pathname + authorizeUrl.search, cookies: { identity_link: ticketCookie.value } })
    expect(started.statusCode, started.body).toBe(302)
    const binding = started.cookies.find((cookie) => cookie.name === 'sign_in_flow')!.value
    const answer = await callback(t, await op.signIn(started.headers.location as string, subject), binding)
    return new URL(answer.headers.location as string)
  }

  const identitiesOf = async (headers: Record<string, string>) => (await t.app.inject({ url: `${V2}/users/me/identities`, headers })).json() as { id: string; provider: string }[]

  it('links a provider to the signed-in user, who then signs in with it', async () => {
    const me = await seedAndLogin(t.app)
    const subject = person({ email: `elsewhere-${Date.now()}@corp.example` })
    const landed = await link(me.headers, 'corp', subject)
    expect(landed.origin + landed.pathname).toBe(settings)
    expect(landed.searchParams.get('linked')).toBe('corp')
    expect((await identitiesOf(me.headers)).map((identity) => identity.provider)).toEqual(['corp'])
    expect((await me_(await tokensFor(subject))).id).toBe(me.user.id)
  })

  it('refuses a ticket opened in another browser or twice, and an identity another account holds', async () => {
    const me = await seedAndLogin(t.app)
    const asked = await t.app.inject({ method: 'POST', url: `${V2}/users/me/identities/corp`, headers: me.headers, payload: { redirect_to: settings } })
    const authorizeUrl = new URL(asked.json().authorize_url)
    const ticketCookie = asked.cookies.find((cookie) => cookie.name === 'identity_link')!.value
    expectError(await t.app.inject({ url: authorizeUrl.pathname + authorizeUrl.search }), 400, 'Invalid or expired link ticket', 'invalid_link_ticket')
    // The try from the other browser spent it.
    expectError(await t.app.inject({ url: authorizeUrl.pathname + authorizeUrl.search, cookies: { identity_link: ticketCookie } }), 400, 'Invalid or expired link ticket', 'invalid_link_ticket')

    const taken = person()
    await tokensFor(taken)
    expect((await link(me.headers, 'corp', taken)).searchParams.get('error')).toBe('identity_taken')
    expect(await identitiesOf(me.headers)).toEqual([])
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/users/me/identities/nobody`, headers: me.headers, payload: { redirect_to: settings } }), 404, 'Provider not found')
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/users/me/identities/corp`, headers: me.headers, payload: { redirect_to: 'https://evil.example.net/' } }), 400, 'Invalid redirect: https://evil.example.net is not in AUTH_REDIRECT_ORIGINS')
  })

  it('refuses to unlink the last way to sign in, and unlinks any other', async () => {
    const subject = person()
    const tokens = await tokensFor(subject)
    const headers = { authorization: `Bearer ${tokens.access_token}` }
    const [only] = await identitiesOf(headers)
    const unlink = (id: string) => t.app.inject({ method: 'DELETE', url: `${V2}/users/me/identities/${id}`, headers })
    expectError(await unlink(only!.id), 409, 'Cannot remove the last way to sign in', 'last_sign_in_method')
    // A provider sign-in proves no one to link another: the session proves itself first, by mail.
    await reauthenticate(t, headers)
    expect((await link(headers, 'backup', subject)).searchParams.get('linked')).toBe('backup')
    expect((await unlink(only!.id)).statusCode).toBe(200)
    const [backup] = await identitiesOf(headers)
    expect(backup?.provider).toBe('backup')
    expectError(await unlink(backup!.id), 409, 'Cannot remove the last way to sign in')
    expectError(await unlink(only!.id), 404, 'Identity not found', 'identity_not_found')

    // A user with a password may unlink their only identity.
    const withPassword = await seedAndLogin(t.app)
    await link(withPassword.headers, 'corp', person({ email: `pw-${Date.now()}@corp.example` }))
    const [linked] = await identitiesOf(withPassword.headers)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/identities/${linked!.id}`, headers: withPassword.headers })).statusCode).toBe(200)
    const events = await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', withPassword.user.id).where('type', 'in', ['identity_linked', 'identity_unlinked']).execute()
    expect(events).toEqual(expect.arrayContaining([{ type: 'identity_linked', method: 'oidc:corp' }, { type: 'identity_unlinked', method: 'oidc:corp' }]))
  })
})

describe('several server processes', () => {
  it('finishes a sign-in at another instance than the one that started it, and trades the code at a third', async () => {
    // A second app on the same database: its own services and memory, as another process has.
    const other = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger: createLogger('silent') })
    try {
      const subject = person()
      const { providerUrl, binding } = await authorize()
      const returned = await op.signIn(providerUrl, subject)
      const answer = await other.inject({ url: returned.pathname + returned.search, cookies: { sign_in_flow: binding } })
      const code = new URL(answer.headers.location as string).searchParams.get('code')
      expect(code, answer.headers.location as string).toBeTruthy()
      const handoff = answer.cookies.find((cookie) => cookie.name === 'sign_in_handoff')!.value
      expect((await exchange(code!, t, {}, handoff)).statusCode).toBe(200)
      // And the state is spent for every instance.
      expectError(await callback(t, returned, binding), 400, 'Invalid or expired sign-in')
    } finally {
      await other.close()
    }
  })
})

describe.skipIf(!inject('redisUrl'))('with Redis', () => {
  it('signs in, counting new accounts in Redis', async () => {
    const app = await createTestApp(providerEnv(op, { REDIS_URL: inject('redisUrl') }))
    try {
      const code = (await signIn(person(), app)).searchParams.get('code')
      expect(code).toBeTruthy()
      expect((await exchange(code!, app)).statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})

describe('identities in the admin API', () => {
  it('lets a superuser list a user\'s identities and unlink even the last one; nobody else', async () => {
    const tokens = await tokensFor(person())
    const user = await me_(tokens)
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const listed = await t.app.inject({ url: `${V2}/admin/users/${user.id}/identities`, headers: admin.headers })
    expect(listed.statusCode, listed.body).toBe(200)
    const [identity] = listed.json() as { id: string; provider: string }[]
    expect(identity?.provider).toBe('corp')
    const ordinary = await seedAndLogin(t.app)
    expectError(await t.app.inject({ url: `${V2}/admin/users/${user.id}/identities`, headers: ordinary.headers }), 403)
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${user.id}/identities/${identity!.id}`, headers: ordinary.headers }), 403)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${user.id}/identities/${identity!.id}`, headers: admin.headers })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me/identities`, headers: { authorization: `Bearer ${tokens.access_token}` } })).json()).toEqual([])
    expectError(await t.app.inject({ url: `${V2}/admin/users/999999/identities`, headers: admin.headers }), 404)
  })
})

describe('the typed client', () => {
  it('sends the browser to the provider and finishes the sign-in with the code', async () => {
    const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { api, auth } = createClient({ baseUrl })
    const started = await fetch(await auth.providerSignInUrl('corp', `${FRONTEND}/signed-in`), { redirect: 'manual' })
    expect(started.status).toBe(302)
    const binding = /sign_in_flow=([^;]+)/.exec(started.headers.getSetCookie().join('\n'))?.[1]
    const subject = person()
    const landed = await callback(t, await op.signIn(started.headers.get('location')!, subject), binding)
    await auth.finishProviderSignIn(new URL(landed.headers.location as string).searchParams.get('code')!)
    expect(await unwrap(api.GET('/api/v2/users/me'))).toMatchObject({ email: `${subject}@corp.example` })
    await expect(auth.finishProviderSignIn('used-or-unknown')).rejects.toMatchObject({ status: 400, code: 'invalid_code' })
  })
})

describe('providers that are away', () => {
  it('starts without a provider whose discovery fails, and sends the browser back with provider_unavailable when the provider goes away mid-flow', async () => {
    const other = await startOidcProvider([CALLBACK])
    const app = await createTestApp({ ...providerEnv(other), OIDC_PROVIDERS: 'corp,gone', OIDC_GONE_ISSUER: 'http://127.0.0.1:9', OIDC_GONE_CLIENT_ID: 'x', OIDC_GONE_CLIENT_SECRET: 'y' })
    try {
      expect((await app.app.inject({ url: `${V2}/auth/providers` })).json()).toEqual([{ name: 'corp', label: 'Corp SSO' }])
      const subject = `away-${Date.now()}`
      other.accounts.set(subject, { email: `${subject}@corp.example`, email_verified: true })
      const { providerUrl, binding } = await authorize(app)
      const returned = await other.signIn(providerUrl, subject)
      await other.stop()
      const answer = await callback(app, returned, binding)
      const landed = new URL(answer.headers.location as string)
      expect(landed.searchParams.get('error')).toBe('provider_unavailable')
      expect(await app.db.selectFrom('users').select('id').where('email', '=', `${subject}@corp.example`).execute()).toHaveLength(0)
    } finally {
      await app.close()
      await other.stop()
    }
  })

  it('answers 503 provider_unavailable for a provider that was down at start, and signs in with it once it comes up', async () => {
    const port = await freePort()
    const issuer = `http://127.0.0.1:${port}`
    const app = await createTestApp({ ...providerEnv(op), OIDC_PROVIDERS: 'corp,late', OIDC_LATE_ISSUER: issuer, OIDC_LATE_CLIENT_ID: op.clientId, OIDC_LATE_CLIENT_SECRET: op.clientSecret })
    let late: TestOidcProvider | undefined
    try {
      const refused = await app.app.inject({ url: `${V2}/auth/late/authorize?redirect_to=${encodeURIComponent(FRONTEND)}` })
      expectError(refused, 503, /^The provider late did not answer its discovery yet/, 'provider_unavailable')
      expect(refused.headers['retry-after']).toBe('5')
      expectError(await app.app.inject({ url: `${V2}/auth/nobody/authorize?redirect_to=${encodeURIComponent(FRONTEND)}` }), 404, undefined, 'provider_not_found')
      late = await startOidcProvider([`${PUBLIC_URL}${V2}/auth/late/callback`], { port })
      await waitFor(async () => ((await app.app.inject({ url: `${V2}/auth/providers` })).json() as { name: string }[]).some((provider) => provider.name === 'late'))
      expect((await app.app.inject({ url: `${V2}/auth/late/authorize?redirect_to=${encodeURIComponent(FRONTEND)}` })).statusCode).toBe(302)
    } finally {
      await app.close()
      await late?.stop()
    }
  })

  it('creates no account under USER_SIGNUP=authenticated', async () => {
    const app = await createTestApp(providerEnv(op, { USER_SIGNUP: 'authenticated' }))
    try {
      expect((await signIn(person(), app)).searchParams.get('error')).toBe('signup_disabled')
    } finally {
      await app.close()
    }
  })

  it('counts new accounts against the per-address sign-up limit', async () => {
    const app = await createTestApp(providerEnv(op, { SIGNUP_RATE_LIMIT: '1/3600' }))
    try {
      expect((await signIn(person(), app)).searchParams.get('code')).toBeTruthy()
      expect((await signIn(person(), app)).searchParams.get('error')).toBe('rate_limited')
    } finally {
      await app.close()
    }
  })
})
