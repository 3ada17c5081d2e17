// The superuser endpoints under /api/v2/admin that the admin console runs on: overview, the users
// directory (every state, search, sort, pages), a user's sessions and API keys, and resending
// their verification mail. Everyone else gets 401 or 403; API keys never reach them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { dialect } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { login, seedAndLogin, seedUser,V2 } from '../../../test/helpers/users.js'

let t: TestApp
let smtp: TestSmtpServer
let close: () => Promise<void>
let admin: LoggedIn
let member: LoggedIn
beforeAll(async () => {
  ;({ t, smtp, close } = await createAppWithSmtp())
  admin = await seedAndLogin(t.app, {}, { superuser: true })
  member = await seedAndLogin(t.app)
})
afterAll(() => close())

const get = (url: string, who: LoggedIn = admin) => t.app.inject({ url: `${V2}/admin${url}`, headers: who.headers })

describe('who may call /api/v2/admin', () => {
  const routes: [string, string][] = [
    ['GET', '/overview'],
    ['GET', '/users'],
    ['GET', '/users/1'],
    ['GET', '/users/1/sessions'],
    ['DELETE', '/users/1/sessions'],
    ['GET', '/users/1/api-keys'],
    ['DELETE', '/users/1/api-keys/1'],
    ['POST', '/users/1/email-verification'],
  ]

  it.each(routes)('%s %s: 401 without a login, 403 for a non-superuser', async (method, path) => {
    const url = `${V2}/admin${path}`
    expectError(await t.app.inject({ method: method as 'GET', url }), 401, 'Not authenticated')
    expectError(await t.app.inject({ method: method as 'GET', url, headers: member.headers }), 403, 'Not enough permissions')
  })

  it("refuses a superuser's API key on every route", async () => {
    const created = await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: admin.headers, payload: { name: 'ops', scopes: ['read', 'write'] } })
    const headers = { 'x-api-key': created.json().key as string }
    for (const [method, path] of routes) {
      expectError(await t.app.inject({ method: method as 'GET', url: `${V2}/admin${path}`, headers }), 403, 'API keys cannot be used here')
    }
  })
})

describe('GET /api/v2/admin/overview', () => {
  it('counts live users and posts, and the last 7 days of sign-ups and logins', async () => {
    const before = (await get('/overview')).json()
    const writer = await seedAndLogin(t.app)
    await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers: writer.headers, payload: { title: 'Counted', text: 'once' } })

    const response = await get('/overview')
    expect(response.statusCode, response.body).toBe(200)
    const overview = response.json()
    expect(overview.users).toBe(before.users + 1)
    expect(overview.posts).toBe(before.posts + 1)
    expect(overview.days).toHaveLength(7)
    const today = new Date().toISOString().slice(0, 10)
    expect(overview.days[6].day).toBe(today)
    expect(overview.days[6].sign_ups).toBe(before.days[6].sign_ups + 1)
    expect(overview.days[6].logins).toBe(before.days[6].logins + 1)
    expect(overview.days[0].day < overview.days[6].day).toBe(true)
    expect(overview.database).toEqual({ dialect: dialect(), status: 'ok' })
    expect(overview.redis).toBe('not_configured')
  })
})

describe('GET /api/v2/admin/users', () => {
  let gone: Awaited<ReturnType<typeof seedUser>>
  beforeAll(async () => {
    gone = await seedUser(t.app, { name: 'Zed Gone', username: 'zz_gone', email: 'Zed.Gone@Example.com' })
    await t.app.inject({ method: 'DELETE', url: `${V2}/users/${gone.id}`, headers: admin.headers })
    await seedUser(t.app, { name: 'Aaron Live', username: 'aa_live', email: 'aaron@example.com' })
  })

  it('lists live users by default, with every field a superuser manages', async () => {
    const page = (await get('/users?limit=100')).json()
    expect(page.data.some((user: { id: number }) => user.id === gone.id)).toBe(false)
    expect(page.total_count).toBe(page.data.length)
    const own = page.data.find((user: { id: number }) => user.id === admin.user.id)
    expect(own).toMatchObject({ is_superuser: true, is_deleted: false, deleted_at: null, is_active: true, email: admin.user.email })
  })

  it('finds soft-deleted users with status=deleted or all', async () => {
    const deleted = (await get('/users?status=deleted')).json()
    expect(deleted.data.map((user: { id: number }) => user.id)).toEqual([gone.id])
    expect(deleted.data[0].is_deleted).toBe(true)
    expect(deleted.data[0].deleted_at).toMatch(/^\d{4}-/)
    const all = (await get('/users?status=all&limit=100')).json()
    expect(all.total_count).toBe((await get('/users?limit=1')).json().total_count + 1)
  })

  it('searches name or username, or a whole email address case-insensitively', async () => {
    expect((await get('/users?status=all&search=zz_go')).json().data.map((user: { id: number }) => user.id)).toEqual([gone.id])
    expect((await get('/users?status=all&search=zed.gone@example.COM')).json().data.map((user: { id: number }) => user.id)).toEqual([gone.id])
    expect((await get('/users?status=all&search=zed.gone@example')).json().total_count).toBe(0)
  })

  it('sorts by id, username or email in either direction, and pages', async () => {
    const byUsername = (await get('/users?sort=username&limit=100')).json().data.map((user: { username: string }) => user.username)
    expect(byUsername).toEqual([...byUsername].sort())
    expect(byUsername[0]).toBe('aa_live')
    const descending = (await get('/users?sort=-email&limit=100')).json().data.map((user: { email: string }) => user.email.toLowerCase())
    expect(descending).toEqual([...descending].sort().reverse())
    const newest = (await get('/users?sort=-id&limit=2')).json()
    expect(newest.data[0].id).toBeGreaterThan(newest.data[1].id)
    const second = (await get('/users?sort=-id&limit=2&page=2')).json()
    expect(second.data[0].id).toBeLessThan(newest.data[1].id)
    expect(second.has_more).toBe(second.total_count > 4)
  })

  it('refuses an unknown sort or state with 422', async () => {
    expect((await get('/users?sort=password')).statusCode).toBe(422)
    expect((await get('/users?status=banned')).statusCode).toBe(422)
  })

  it('reads one user in any state; 404 for no such user', async () => {
    expect((await get(`/users/${gone.id}`)).json()).toMatchObject({ id: gone.id, is_deleted: true, username: 'zz_gone' })
    expectError(await get('/users/999999'), 404, 'User not found')
  })
})

describe("a user's sessions and API keys", () => {
  it('lists the sessions and ends them all; the tokens stop working', async () => {
    const target = await seedAndLogin(t.app)
    await login(t.app, target.user.username, target.user.password)
    const sessions = (await get(`/users/${target.user.id}/sessions`)).json()
    expect(sessions).toHaveLength(2)
    expect(sessions.every((session: { current: boolean }) => !session.current)).toBe(true)

    const ended = await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${target.user.id}/sessions`, headers: admin.headers })
    expect(ended.json()).toEqual({ message: 'Revoked 2 sessions' })
    expect((await get(`/users/${target.user.id}/sessions`)).json()).toEqual([])
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers: target.headers }), 401, 'Not authenticated')
    const events = (await t.app.inject({ url: `${V2}/security-events?user_id=${target.user.id}&type=session_revoked`, headers: admin.headers })).json()
    expect(events.total_count).toBe(1)
    expectError(await get('/users/999999/sessions'), 404, 'User not found')
  })

  it("lists a user's keys without secrets and revokes one; the key stops working", async () => {
    const owner = await seedAndLogin(t.app)
    const created = (await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: owner.headers, payload: { name: 'export', scopes: ['read'] } })).json()
    const keys = (await get(`/users/${owner.user.id}/api-keys`)).json()
    expect(keys).toEqual([expect.objectContaining({ id: created.id, name: 'export', prefix: created.prefix })])
    expect(JSON.stringify(keys)).not.toContain(created.key)

    // Another user's id in the path does not reach this key.
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${member.user.id}/api-keys/${created.id}`, headers: admin.headers }), 404, 'API key not found')
    const revoked = await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${owner.user.id}/api-keys/${created.id}`, headers: admin.headers })
    expect(revoked.json()).toEqual({ message: 'API key revoked' })
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': created.key } })).statusCode).toBe(401)
    expect((await get(`/users/${owner.user.id}/api-keys`)).json()).toEqual([])
    expectError(await get('/users/999999/api-keys'), 404, 'User not found')
  })
})

describe('POST /api/v2/admin/users/{user_id}/email-verification', () => {
  it('mails the user a working link (202); 200 and no mail once verified', async () => {
    const target = await seedUser(t.app)
    const sent = await t.app.inject({ method: 'POST', url: `${V2}/admin/users/${target.id}/email-verification`, headers: admin.headers })
    expect(sent.statusCode, sent.body).toBe(202)
    const [mail] = await smtp.waitFor(target.email)
    const confirmed = await t.app.inject({ method: 'POST', url: `${V2}/email-verification/confirm`, payload: { token: tokenIn(mail!) } })
    expect(confirmed.statusCode).toBe(200)

    const again = await t.app.inject({ method: 'POST', url: `${V2}/admin/users/${target.id}/email-verification`, headers: admin.headers })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({ message: 'Email already verified' })
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/admin/users/999999/email-verification`, headers: admin.headers }), 404, 'User not found')
  })
})
