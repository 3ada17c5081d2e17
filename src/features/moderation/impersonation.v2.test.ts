// Support impersonation over HTTP: a superuser with a fresh session (proven by their second factor
// when they have one) gets an access token for a user carrying `act`, with no refresh token; the
// route table decides what it may do (every change refused read-only, the ways in refused in
// full), every request is recorded with both ids, the user sees it in their own security log and
// by mail, and it ends early for bearer clients and from the superuser's side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { reauthenticate } from '../../../test/helpers/reauthenticate.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import { sessionOf } from '../../../test/helpers/tokens.js'
import { awayFromStepEdge, enrolTotp, totpCode } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
let admin: LoggedIn
beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp({ IMPERSONATION_NOTIFY: 'mail', LOGIN_RATE_LIMIT: '1000', DEFAULT_RATE_LIMIT: '100000/60' }))
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => close())

const READS = ['GET', 'HEAD', 'OPTIONS']
const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload, headers })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
const urlOf = (url: string) => url.replace(/:(\w+)/g, '1').replace('*', 'x')

interface Started {
  impersonation_id: string
  access_token: string
  expires_in: number
  mode: string
  user: { id: number }
}

async function impersonateAs(target: LoggedIn, body: object = {}, headers: Record<string, string> = admin.headers): Promise<Started> {
  const answer = await post(`${V2}/admin/users/${target.user.id}/impersonate`, { reason: 'ticket #4521: posts missing', ...body }, headers)
  expect(answer.statusCode, answer.body).toBe(201)
  return answer.json() as Started
}

/** Makes a session stale: its last proof eleven minutes ago. */
async function age(who: LoggedIn): Promise<void> {
  await t.db.updateTable('sessions').set({ proven_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', sessionOf(who.accessToken)).execute()
}

describe('starting an impersonation', () => {
  it('hands a fresh superuser an access token for the user with act, no refresh token, and tells the user', async () => {
    const who = await seedAndLogin(t.app)
    const answer = await post(`${V2}/admin/users/${who.user.id}/impersonate`, { reason: 'ticket #1: cannot see drafts' }, admin.headers)
    expect(answer.statusCode, answer.body).toBe(201)
    const started = answer.json()
    expect(started).toMatchObject({ token_type: 'bearer', expires_in: 15 * 60, mode: 'read_only', user: { id: who.user.id, email: who.user.email } })
    expect(started).not.toHaveProperty('refresh_token')
    expect(answer.cookies).toEqual([])
    expect(claimsOf(started.access_token)).toMatchObject({ sub: String(who.user.id), act: { sub: String(admin.user.id) }, imp: 'read_only' })
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(started.access_token) })).json()).toMatchObject({ id: who.user.id })
    // The access token is no refresh token.
    expectError(await post(`${V2}/refresh`, { refresh_token: started.access_token }), 401, undefined, 'not_authenticated')

    // The user's own log says who, how and why; the superuser's address is not in it.
    const own = (await t.app.inject({ url: `${V2}/users/me/security-events?type=impersonation_started`, headers: who.headers })).json()
    expect(own.data).toEqual([
      expect.objectContaining({ type: 'impersonation_started', user_id: who.user.id, actor_id: admin.user.id, ip: null, details: { mode: 'read_only', reason: 'ticket #1: cannot see drafts', expires_at: expect.any(String) } }),
    ])
    const [mail] = await smtp.waitFor(who.user.email, 1)
    expect(mail!.subject).toBe('Support accessed your account')
    expect(mail!.text).toContain('read-only access, for at most 15 minutes')
    expect(mail!.text).toContain('ticket #1: cannot see drafts')

    // Every request is recorded with both ids.
    const listed = (await t.app.inject({ url: `${V2}/admin/impersonations?user_id=${who.user.id}`, headers: admin.headers })).json()
    expect(listed.data).toEqual([expect.objectContaining({ id: started.impersonation_id, user_id: who.user.id, superuser_id: admin.user.id, mode: 'read_only', ended_at: null })])
    const requests = (await t.app.inject({ url: `${V2}/admin/impersonations/${started.impersonation_id}/requests`, headers: admin.headers })).json()
    expect(requests.data).toEqual([expect.objectContaining({ method: 'GET', route: '/api/v2/users/me', status: 200 })])
  })

  it('needs a fresh session, proven by the second factor when the superuser has one', async () => {
    const who = await seedAndLogin(t.app)
    const support = await seedAndLogin(t.app, {}, { superuser: true })
    await age(support)
    const refused = await post(`${V2}/admin/users/${who.user.id}/impersonate`, { reason: 'stale' }, support.headers)
    expectError(refused, 403, undefined, 'reauthentication_required')
    await reauthenticate(t, support.headers, { password: support.user.password })
    await impersonateAs(who, {}, support.headers)

    // With an authenticator, a password proof no longer makes the session fresh: the code does.
    const { secret } = await enrolTotp(t.app, support.headers)
    expectError(await post(`${V2}/reauthenticate`, { password: support.user.password }, support.headers), 409, undefined, 'reauthentication_method_unavailable')
    await age(support)
    const withFactor = await post(`${V2}/admin/users/${who.user.id}/impersonate`, { reason: 'stale' }, support.headers)
    expectError(withFactor, 403, undefined, 'reauthentication_required')
    expect(withFactor.json().methods).toContain('totp')
    await reauthenticate(t, support.headers, { code: totpCode(secret, (await awayFromStepEdge()) + 1) })
    await impersonateAs(who, {}, support.headers)
  })

  it('refuses superusers, banned users, chains, callers who are not superusers, API keys and more than an hour', async () => {
    const who = await seedAndLogin(t.app)
    const otherAdmin = await seedAndLogin(t.app, {}, { superuser: true })
    expectError(await post(`${V2}/admin/users/${otherAdmin.user.id}/impersonate`, { reason: 'x' }, admin.headers), 409, undefined, 'cannot_impersonate')
    expectError(await post(`${V2}/admin/users/${admin.user.id}/impersonate`, { reason: 'x' }, admin.headers), 409, undefined, 'cannot_impersonate')
    const banned = await seedAndLogin(t.app)
    expect((await post(`${V2}/admin/users/${banned.user.id}/ban`, { reason: 'spam' }, admin.headers)).statusCode).toBe(200)
    expectError(await post(`${V2}/admin/users/${banned.user.id}/impersonate`, { reason: 'x' }, admin.headers), 409, undefined, 'cannot_impersonate')
    const full = await impersonateAs(who, { mode: 'full' })
    const other = await seedAndLogin(t.app)
    expectError(await post(`${V2}/admin/users/${other.user.id}/impersonate`, { reason: 'chain' }, bearer(full.access_token)), 403, undefined, 'impersonation_forbidden')
    expectError(await post(`${V2}/admin/users/${other.user.id}/impersonate`, { reason: 'x' }, who.headers), 403, undefined, 'forbidden')
    const key = (await post(`${V2}/api-keys/`, { name: 'admin key', scopes: ['read', 'write'] }, admin.headers)).json() as { key: string }
    expectError(await post(`${V2}/admin/users/${other.user.id}/impersonate`, { reason: 'x' }, { 'x-api-key': key.key }), 403, undefined, 'api_key_not_allowed')
    expectError(await post(`${V2}/admin/users/${other.user.id}/impersonate`, { reason: 'x', minutes: 61 }, admin.headers), 422, undefined, 'validation_failed')
    expectError(await post(`${V2}/admin/users/${other.user.id}/impersonate`, { reason: '' }, admin.headers), 422, undefined, 'validation_failed')
  })
})

describe('what an impersonation may do, from the route table', () => {
  it('refuses every change to a read-only token, but ending it', async () => {
    const who = await seedAndLogin(t.app)
    const { access_token: token } = await impersonateAs(who)
    const changing = t.app.routeTable.filter((route) => !READS.includes(route.method))
    expect(changing.length).toBeGreaterThan(80)
    const missed: string[] = []
    for (const route of changing) {
      if (route.config.impersonation === 'ends') continue
      const answer = await t.app.inject({ method: route.method as 'POST', url: urlOf(route.url), headers: bearer(token), ...(route.method === 'DELETE' ? {} : { payload: {} }) })
      const expected = route.config.impersonation === 'refused' ? 'impersonation_forbidden' : 'impersonation_read_only'
      if (answer.statusCode !== 403 || answer.json().code !== expected) missed.push(`${route.method} ${route.url}: ${answer.statusCode} ${answer.body.slice(0, 80)}`)
    }
    expect(missed).toEqual([])
    // Reading works, and the account is as it was.
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(token) })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: who.headers })).statusCode).toBe(200)
  })

  it('refuses in full mode every route classified refused, and every route that touches the ways in is classified so', async () => {
    const who = await seedAndLogin(t.app)
    const { access_token: token } = await impersonateAs(who, { mode: 'full' })
    const refused = t.app.routeTable.filter((route) => route.config.impersonation === 'refused')
    const missed: string[] = []
    for (const route of refused) {
      const answer = await t.app.inject({ method: route.method as 'POST', url: urlOf(route.url), headers: bearer(token), ...(READS.includes(route.method) || route.method === 'DELETE' ? {} : { payload: {} }) })
      // HEAD answers without a body: its status says it.
      const code = route.method === 'HEAD' ? 'impersonation_forbidden' : answer.json().code
      if (answer.statusCode !== 403 || code !== 'impersonation_forbidden') missed.push(`${route.method} ${route.url}: ${answer.statusCode}`)
    }
    expect(missed).toEqual([])
    // A route that changes a password, an email, a factor, a passkey, an identity, a key, a session,
    // a reauthentication, an impersonation or the account's existence must be refused: a new one is caught here.
    const sensitive = /password|mfa|passkey|identit|api-keys|sessions|reauthenticate|impersonate|export|\/users\/:user_id(\/permanent)?$|\/users\/me$/
    const unclassified = t.app.routeTable
      .filter((route) => route.protectedRoute && !READS.includes(route.method) && sensitive.test(route.url))
      .filter((route) => !(route.method === 'PATCH' && /\/users\/:user_id$/.test(route.url)))
      .filter((route) => route.config.impersonation !== 'refused')
      .map((route) => `${route.method} ${route.url}`)
    expect(unclassified).toEqual([])
    // The account's own content may change; its email may not.
    expect((await post(`${V2}/posts/`, { title: 'Fixed for you', text: 'by support' }, bearer(token))).statusCode).toBe(201)
    const patch = (payload: object) => t.app.inject({ method: 'PATCH', url: `${V2}/users/${who.user.id}`, headers: bearer(token), payload })
    expect((await patch({ name: 'Renamed by support' })).statusCode).toBe(200)
    expectError(await patch({ email: 'elsewhere@example.com', current_password: who.user.password }), 403, undefined, 'impersonation_forbidden')
  })
})

describe('the start-up check', () => {
  it('refuses to start when a protected route that changes something does not say what an impersonation may do', async () => {
    await expect(
      createTestApp({}, (app) => {
        app.post('/unclassified', { config: { protectedRoute: true, wayIn: 'none' }, onRequest: [app.authenticate] }, async () => ({}))
      }),
    ).rejects.toThrow(/POST \/unclassified must declare what a support impersonation may do on it/)
  })
})

describe('ending an impersonation', () => {
  it('ends with its own token (a bearer client), with the superuser\'s, and when the user logs out everywhere', async () => {
    const who = await seedAndLogin(t.app)
    // A superuser of this test's own: the others' impersonations still run.
    const support = await seedAndLogin(t.app, {}, { superuser: true })
    const impersonate = (target: LoggedIn, body: object = {}) => impersonateAs(target, body, support.headers)
    const first = await impersonate(who)
    const ended = await post(`${V2}/admin/impersonation/end`, {}, bearer(first.access_token))
    expect(ended.statusCode, ended.body).toBe(200)
    expect(ended.json()).toEqual({ detail: 'Ended 1 impersonation', ended: 1 })
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: bearer(first.access_token) }), 401, undefined, 'not_authenticated')

    const second = await impersonate(who, { mode: 'full' })
    const third = await impersonate(who)
    expect((await post(`${V2}/admin/impersonation/end`, {}, support.headers)).json()).toEqual({ detail: 'Ended 2 impersonations', ended: 2 })
    for (const token of [second.access_token, third.access_token]) expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(token) })).statusCode).toBe(401)
    expectError(await post(`${V2}/admin/impersonation/end`, {}, support.headers), 404, undefined, 'impersonation_not_found')
    const types = (await t.app.inject({ url: `${V2}/users/me/security-events?limit=100`, headers: who.headers })).json().data.map((event: { type: string }) => event.type)
    expect(types.filter((type: string) => type === 'impersonation_ended')).toHaveLength(3)

    // Logging out with its token ends it as well, and says so.
    const fifth = await impersonate(who)
    expect((await post(`${V2}/logout`, {}, bearer(fifth.access_token))).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(fifth.access_token) })).statusCode).toBe(401)
    await waitFor(async () => (await t.app.inject({ url: `${V2}/admin/impersonations?user_id=${who.user.id}`, headers: support.headers })).json().data[0].ended_at !== null)

    // The user ends it too, by ending their other sessions.
    const fourth = await impersonate(who)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/sessions`, headers: who.headers })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(fourth.access_token) })).statusCode).toBe(401)
  })
})
