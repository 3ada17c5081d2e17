// Bans over HTTP, on every way in: a password (v1 JSON, the OAuth2 form, v2), a mailed link's
// code, GitHub (a local server speaking its endpoints), a passkey (a software authenticator), a
// refresh token and an API key all answer 403 `account_banned` with the ban's public message;
// the user's access tokens stop at once and their open stream closes; a lifted or expired ban
// lets them in again. Superusers and oneself cannot be banned. Two processes: test/multi-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { SoftwareAuthenticator } from '../../../test/helpers/authenticator.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { GitHubAccount, TestGitHub } from '../../../test/helpers/github.js'
import { startGitHub } from '../../../test/helpers/github.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { codeIn, createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import { openStream } from '../../../test/helpers/sse.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

const ORIGIN = 'http://localhost:8000'
const FRONTEND = 'http://localhost:5173'
const MESSAGE = 'Your account is suspended for spam. Write to appeals@example.com.'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
let github: TestGitHub
let base: string
let admin: LoggedIn
beforeAll(async () => {
  github = await startGitHub()
  const setup = await createAppWithSmtp({
    PUBLIC_URL: ORIGIN,
    AUTH_REDIRECT_ORIGINS: FRONTEND,
    GITHUB_CLIENT_ID: github.clientId,
    GITHUB_CLIENT_SECRET: github.clientSecret,
    GITHUB_URL: github.url,
    GITHUB_API_URL: `${github.url}/api`,
    LOGIN_RATE_LIMIT: '1000',
  })
  ;({ smtp, t, close } = setup)
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(async () => {
  await close()
  await github.stop()
})

const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload, headers })
const ban = (userId: number, body: object = { reason: 'spam', public_message: MESSAGE }, headers: Record<string, string> = admin.headers) =>
  post(`${V2}/admin/users/${userId}/ban`, body, headers)
const lift = (userId: number) => t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${userId}/ban`, headers: admin.headers })
const passwordLogin = (who: LoggedIn, prefix = V2) => post(`${prefix}/login`, { username: who.user.username, password: who.user.password })
const formLogin = (who: LoggedIn) =>
  t.app.inject({
    method: 'POST',
    url: `${V1}/login`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'password', username: who.user.username, password: who.user.password }).toString(),
  })
const expectBanned = (answer: Awaited<ReturnType<typeof post>>, message = MESSAGE) => expectError(answer, 403, message, 'account_banned')

/** The whole GitHub sign-in as `who`, through the code exchange; the exchange's answer. */
async function githubSignIn(who: GitHubAccount) {
  github.as(who)
  const started = await t.app.inject({ url: `${V2}/auth/github/authorize?redirect_to=${encodeURIComponent(`${FRONTEND}/signed-in`)}` })
  const returned = await github.signIn(new URL(started.headers.location as string).href)
  const binding = started.cookies.find((cookie) => cookie.name === 'sign_in_flow')!.value
  const answer = await t.app.inject({ url: returned.pathname + returned.search, cookies: { sign_in_flow: binding } })
  const code = new URL(answer.headers.location as string).searchParams.get('code')!
  const handoff = answer.cookies.find((cookie) => cookie.name === 'sign_in_handoff')!.value
  return t.app.inject({ method: 'POST', url: `${V2}/auth/token`, payload: { code }, cookies: { sign_in_handoff: handoff } })
}

describe('a ban', () => {
  it('refuses every way in with the public message, ends the sessions and closes the open stream', async () => {
    const who = await seedAndLogin(t.app)
    // A passkey, an API key, a GitHub identity and a live stream, all made before the ban.
    const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
    const creation = (await post(`${V2}/users/me/passkeys/options`, {}, who.headers)).json()
    expect((await post(`${V2}/users/me/passkeys`, { response: authenticator.register(creation), name: 'Laptop' }, who.headers)).statusCode).toBe(201)
    const key = (await post(`${V2}/api-keys/`, { name: 'bot', scopes: ['read'] }, who.headers)).json() as { key: string }
    const stream = await openStream(`${base}${V2}/events/stream`, who.headers)
    expect(stream.status).toBe(200)

    const banned = await ban(who.user.id)
    expect(banned.statusCode, banned.body).toBe(200)
    expect(banned.json()).toMatchObject({ id: who.user.id, banned_until: 'forever', ban_reason: 'spam' })
    const closedAt = Date.now()
    await stream.ended
    expect(Date.now() - closedAt).toBeLessThan(5_000)
    expect(stream.events().map((frame) => frame.event)).toContain('user.banned')

    expectBanned(await t.app.inject({ url: `${V2}/users/me`, headers: who.headers }))
    expectBanned(await post(`${V2}/refresh`, { refresh_token: who.refreshToken }))
    expectBanned(await passwordLogin(who))
    expectBanned(await passwordLogin(who, V1))
    expectBanned(await formLogin(who))
    expectBanned(await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': key.key } }))
    const options = (await post(`${V2}/login/passkey/options`, {})).json()
    expectBanned(await post(`${V2}/login/passkey`, { response: authenticator.authenticate(options) }))
    const before = smtp.messages.filter((message) => message.to === who.user.email).length
    expect((await post(`${V2}/login/email`, { email: who.user.email })).statusCode).toBe(202)
    const mail = (await smtp.waitFor(who.user.email, before + 1))[before]!
    expectBanned(await post(`${V2}/login/email/confirm`, { email: who.user.email, code: codeIn(mail) }))
    expect((await post(`${V2}/login/email`, { email: who.user.email })).statusCode).toBe(202)
    const linkMail = (await smtp.waitFor(who.user.email, before + 2))[before + 1]!
    expectBanned(await post(`${V2}/login/email/confirm`, { token: tokenIn(linkMail) }))
    // A wrong password learns nothing of the ban.
    expectError(await post(`${V2}/login`, { username: who.user.username, password: 'not the password' }), 401, undefined, 'invalid_credentials')
    // No refresh-token reuse was taken for theft, and the ban is in the user's log with the superuser's id.
    const events = await t.db.selectFrom('security_events').select(['type', 'actor_id']).where('user_id', '=', who.user.id).execute()
    expect(events.map((event) => event.type)).not.toContain('refresh_token_reused')
    expect(events).toContainEqual({ type: 'user_banned', actor_id: admin.user.id })
    expect((await t.app.inject({ url: `${V2}/admin/users/${who.user.id}/sessions`, headers: admin.headers })).json()).toEqual([])

    // Lifted: the sessions stay ended; every way in works again, the key too.
    const lifted = await lift(who.user.id)
    expect(lifted.json()).toMatchObject({ banned_until: null, ban_reason: null })
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: who.headers }), 401, undefined, 'not_authenticated')
    // (The passkey is a second factor after the password.)
    const again = await passwordLogin(who)
    expectError(again, 401, undefined, 'mfa_required')
    expect((await post(`${V2}/login/passkey`, { response: authenticator.authenticate((await post(`${V2}/login/passkey/options`, {})).json()) })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': key.key } })).statusCode).toBe(200)
    const changes = await t.db.selectFrom('change_events').select('type').where('subject', '=', `user:${who.user.id}`).where('type', 'in', ['user.banned', 'user.unbanned']).orderBy('id').execute()
    expect(changes.map((change) => change.type)).toEqual(['user.banned', 'user.unbanned'])
  })

  it('refuses a sign-in through a provider', async () => {
    const githubAccount: GitHubAccount = { id: 7_000_000 + (Date.now() % 1_000_000), login: 'banned-octocat', name: 'Banned', emails: [{ email: `octo${Date.now()}@users.example`, primary: true, verified: true }] }
    const first = await githubSignIn(githubAccount)
    expect(first.statusCode, first.body).toBe(200)
    const me = (await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${first.json().access_token}` } })).json() as { id: number }
    expect((await ban(me.id)).statusCode).toBe(200)
    expectBanned(await githubSignIn(githubAccount))
  })

  it('says "this account is banned" when no message was left, and gives its end', async () => {
    const who = await seedAndLogin(t.app)
    const until = new Date(Date.now() + 3_600_000).toISOString()
    expect((await ban(who.user.id, { reason: 'cool-off', expires_at: until })).json()).toMatchObject({ banned_until: until })
    const refused = await passwordLogin(who)
    expectBanned(refused, 'This account is banned')
    expect(refused.json().banned_until).toBe(until)
  })

  it('lifts itself when its time has passed, and the expiry job announces it once', async () => {
    const who = await seedAndLogin(t.app)
    expect((await ban(who.user.id, { reason: 'short', expires_at: new Date(Date.now() + 1_500).toISOString() })).statusCode).toBe(200)
    expectBanned(await passwordLogin(who), 'This account is banned')
    await waitFor(async () => (await passwordLogin(who)).statusCode === 200)
    expect((await t.app.inject({ url: `${V2}/admin/users/${who.user.id}`, headers: admin.headers })).json()).toMatchObject({ banned_until: null })
    await t.app.services.bans.liftExpired()
    await t.app.services.bans.liftExpired()
    const unbanned = await t.db.selectFrom('change_events').select('type').where('subject', '=', `user:${who.user.id}`).where('type', '=', 'user.unbanned').execute()
    expect(unbanned).toHaveLength(1)
  })

  it('refuses a superuser, oneself, a time in the past, anyone but a superuser, and a user who does not exist', async () => {
    const otherAdmin = await seedAndLogin(t.app, {}, { superuser: true })
    const who = await seedAndLogin(t.app)
    expectError(await ban(otherAdmin.user.id), 409, undefined, 'cannot_ban_superuser')
    expectError(await ban(admin.user.id), 409, 'You cannot ban yourself', 'cannot_ban_superuser')
    expectError(await ban(who.user.id, { reason: 'late', expires_at: new Date(Date.now() - 1000).toISOString() }), 422, undefined, 'validation_failed')
    expectError(await ban(otherAdmin.user.id, { reason: 'x' }, who.headers), 403, undefined, 'forbidden')
    expectError(await ban(999_999), 404, undefined, 'user_not_found')
    expect((await passwordLogin(otherAdmin)).statusCode).toBe(200)
  })
})
