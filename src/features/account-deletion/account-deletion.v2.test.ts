// Deleting one's own account with a grace period, over HTTP and a real SMTP server: a fresh
// session asks; the account and its posts are hidden at once and every session ends; the mailed
// link (once) or the password takes it back; signing in meanwhile offers only that; the purge,
// run with a test clock past the grace period, removes it for good with its posts, or keeps them
// under "Deleted user" with ACCOUNT_DELETION_CONTENT=anonymize.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { multipart, PNG_1X1 } from '../../../test/helpers/multipart.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import { sessionOf } from '../../../test/helpers/tokens.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

const DAY_MS = 86_400_000

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp({ LOGIN_RATE_LIMIT: '1000', PUBLIC_URL: 'http://localhost:8000' }))
})
afterAll(() => close())

const post = (app: TestApp, url: string, payload: object, headers: Record<string, string> = {}) => app.app.inject({ method: 'POST', url, payload, headers })
const deleteMe = (app: TestApp, who: LoggedIn) => app.app.inject({ method: 'DELETE', url: `${V2}/users/me`, headers: who.headers })
const login = (app: TestApp, who: LoggedIn) => post(app, `${V2}/login`, { username: who.user.username, password: who.user.password })

async function withPost(app: TestApp): Promise<{ who: LoggedIn; postId: number }> {
  const who = await seedAndLogin(app.app)
  const created = await post(app, `${V2}/posts/`, { title: 'Mine', text: 'Written before I left' }, who.headers)
  expect(created.statusCode).toBe(201)
  return { who, postId: created.json().id }
}

/** The token of the cancel link mailed to `email`. */
async function cancelToken(email: string): Promise<string> {
  const [mail] = await smtp.waitFor(email, 1)
  expect(mail!.subject).toBe('Your account will be deleted')
  const link = /(http\S+cancel-deletion\S+)/.exec(mail!.text)![1]!
  return new URL(link).searchParams.get('token')!
}

describe('deleting my account', () => {
  it('hides the account and its posts at once, ends every session, mails a link to take it back, and says so at sign-in', async () => {
    const { who, postId } = await withPost(t)
    const other = await seedAndLogin(t.app, { username: who.user.username + 'x', email: `x${who.user.email}` })
    const second = await login(t, who)
    expect(second.statusCode).toBe(200)
    const answer = await deleteMe(t, who)
    expect(answer.statusCode, answer.body).toBe(202)
    const { status, deletion_due_at: dueAt } = answer.json()
    expect(status).toBe('pending_deletion')
    expect(Math.abs(Date.parse(dueAt) - (Date.now() + 14 * DAY_MS))).toBeLessThan(60_000)

    for (const token of [who.accessToken, second.json().access_token]) expect((await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(401)
    expect((await t.app.inject({ url: `${V2}/users/${who.user.id}`, headers: other.headers })).statusCode).toBe(404)
    expect((await t.app.inject({ url: `${V2}/posts/${postId}`, headers: other.headers })).statusCode).toBe(404)
    await cancelToken(who.user.email)

    const refused = await login(t, who)
    expectError(refused, 403, /scheduled for deletion/, 'account_pending_deletion')
    expect(refused.json().deletion_due_at).toBe(dueAt)
    // A wrong password learns nothing of it.
    expectError(await post(t, `${V2}/login`, { username: who.user.username, password: 'not the password' }), 401, undefined, 'invalid_credentials')
    const events = (await t.db.selectFrom('change_events').select('type').where('subject', '=', `user:${who.user.id}`).execute()).map((row) => row.type)
    expect(events).toContain('user.deleted')
  })

  it('needs a fresh session, and a login token', async () => {
    const who = await seedAndLogin(t.app)
    await t.db.updateTable('sessions').set({ proven_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', sessionOf(who.accessToken)).execute()
    expectError(await deleteMe(t, who), 403, undefined, 'reauthentication_required')
    const fresh = await seedAndLogin(t.app)
    const key = (await post(t, `${V2}/api-keys/`, { name: 'k', scopes: ['read', 'write'] }, fresh.headers)).json() as { key: string }
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/users/me`, headers: { 'x-api-key': key.key } }), 403, undefined, 'api_key_not_allowed')
    expect((await login(t, who)).statusCode).toBe(200)
  })

  it("is refused while the account is an organization's last owner, and nothing changes", async () => {
    const who = await seedAndLogin(t.app)
    const org = (await post(t, `${V2}/orgs`, { name: 'Only mine' }, who.headers)).json() as { id: number }
    expectError(await deleteMe(t, who), 409, /last owner of Only mine/, 'last_owner')
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: who.headers })).statusCode).toBe(200)
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', who.user.email).execute()).toEqual([])
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/orgs/${org.id}`, headers: who.headers })).statusCode).toBe(200)
    expect((await deleteMe(t, who)).statusCode).toBe(202)
  })

  it('is taken back by the mailed link, once, and the account and its posts come back', async () => {
    const { who, postId } = await withPost(t)
    expect((await deleteMe(t, who)).statusCode).toBe(202)
    const token = await cancelToken(who.user.email)
    // The service's own page: a form that posts the token back, so a mail scanner spends nothing.
    const page = await t.app.inject({ url: `/account/cancel-deletion?token=${encodeURIComponent(token)}` })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Keep my account')
    const kept = await t.app.inject({ method: 'POST', url: '/account/cancel-deletion', payload: { token } })
    expect(kept.statusCode).toBe(200)
    expect(kept.body).toContain('Your account is kept')
    expectError(await post(t, `${V2}/users/me/deletion/cancel`, { token }), 400, undefined, 'invalid_token')
    const again = await login(t, who)
    expect(again.statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/posts/${postId}`, headers: { authorization: `Bearer ${again.json().access_token}` } })).statusCode).toBe(200)
    const types = (await t.db.selectFrom('security_events').select('type').where('user_id', '=', who.user.id).execute()).map((row) => row.type)
    expect(types).toEqual(expect.arrayContaining(['account_deletion_requested', 'account_deletion_cancelled']))
  })

  it('is taken back with the login and password, which must be right, and only while pending', async () => {
    const who = await seedAndLogin(t.app)
    expect((await deleteMe(t, who)).statusCode).toBe(202)
    const cancel = (password: string) => post(t, `${V2}/users/me/deletion/cancel`, { login: who.user.email, password })
    const wrong = await cancel('not the password')
    expectError(wrong, 401, 'Incorrect username or password', 'invalid_credentials')
    expect((await cancel(who.user.password)).statusCode).toBe(200)
    // With nothing to cancel, the right password is answered as a wrong one: this door confirms no password.
    const nothingPending = await cancel(who.user.password)
    expect([nothingPending.statusCode, nothingPending.json()]).toEqual([wrong.statusCode, wrong.json()])
    expect((await login(t, who)).statusCode).toBe(200)
  })

  it('removes the account for good when its grace period ends, with its posts and its avatar, and user.removed goes out once', async () => {
    const { who, postId } = await withPost(t)
    const form = multipart([{ field: 'file', filename: 'me.png', contentType: 'image/png', data: PNG_1X1 }])
    const avatar = await t.app.inject({ method: 'POST', url: `${V2}/users/${who.user.id}/avatar`, payload: form.payload, headers: { ...form.headers, ...who.headers } })
    expect(avatar.statusCode, avatar.body).toBe(200)
    const avatarUrl = new URL(avatar.json().avatar_url as string, 'http://localhost:8000').pathname
    expect((await t.app.inject({ url: avatarUrl })).statusCode).toBe(200)
    expect((await deleteMe(t, who)).statusCode).toBe(202)
    await t.app.services.accountDeletion.purgeDue(Date.now() + 13 * DAY_MS)
    expect(await t.db.selectFrom('users').select('id').where('id', '=', who.user.id).executeTakeFirst()).toBeDefined()
    await t.app.services.accountDeletion.purgeDue(Date.now() + 15 * DAY_MS)
    await t.app.services.accountDeletion.purgeDue(Date.now() + 15 * DAY_MS)
    expect(await t.db.selectFrom('users').select('id').where('id', '=', who.user.id).executeTakeFirst()).toBeUndefined()
    expect(await t.db.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst()).toBeUndefined()
    const removed = await t.db.selectFrom('change_events').select('type').where('subject', '=', `user:${who.user.id}`).where('type', '=', 'user.removed').execute()
    expect(removed).toHaveLength(1)
    expect((await t.app.inject({ url: avatarUrl })).statusCode).toBe(404)
    expectError(await login(t, who), 401, undefined, 'invalid_credentials')
  })
})

describe('with ACCOUNT_DELETION_CONTENT=anonymize', () => {
  let anonymizing: TestApp
  beforeAll(async () => {
    anonymizing = await createTestApp({ ACCOUNT_DELETION_CONTENT: 'anonymize', ACCOUNT_DELETION_GRACE_DAYS: '3' })
  })
  afterAll(() => anonymizing.close())

  it('keeps the posts, text and all, under a "Deleted user" author nobody can sign in as', async () => {
    const { who, postId } = await withPost(anonymizing)
    const reader = await seedAndLogin(anonymizing.app)
    const answer = await deleteMe(anonymizing, who)
    expect(Date.parse(answer.json().deletion_due_at) - Date.now()).toBeGreaterThan(3 * DAY_MS - 60_000)
    expect((await anonymizing.app.inject({ url: `${V2}/posts/${postId}`, headers: reader.headers })).statusCode).toBe(404)
    await anonymizing.app.services.accountDeletion.purgeDue(Date.now() + 4 * DAY_MS)
    expect(await anonymizing.db.selectFrom('users').select('id').where('id', '=', who.user.id).executeTakeFirst()).toBeUndefined()
    const kept = await anonymizing.app.inject({ url: `${V2}/posts/${postId}`, headers: reader.headers })
    expect(kept.statusCode).toBe(200)
    expect(kept.json()).toMatchObject({ title: 'Mine', text: 'Written before I left' })
    const author = (await anonymizing.app.inject({ url: `${V2}/users/${kept.json().author_id}`, headers: reader.headers })).json()
    expect(author).toMatchObject({ name: 'Deleted user', username: 'deleted_user' })
    // A second account deleted later joins the same author.
    const { who: next, postId: nextPost } = await withPost(anonymizing)
    await deleteMe(anonymizing, next)
    await anonymizing.app.services.accountDeletion.purgeDue(Date.now() + 4 * DAY_MS)
    expect((await anonymizing.app.inject({ url: `${V2}/posts/${nextPost}`, headers: reader.headers })).json().author_id).toBe(kept.json().author_id)
    expectError(await post(anonymizing, `${V2}/login`, { username: 'deleted_user', password: 'anything at all' }), 401, undefined, 'invalid_credentials')
  })

  it('refuses to impersonate the author, which nothing signs in to', async () => {
    const author = await anonymizing.app.services.users.deletedAuthorId()
    const admin = await seedAndLogin(anonymizing.app, {}, { superuser: true })
    expectError(await post(anonymizing, `${V2}/admin/users/${author}/impersonate`, { reason: 'curious' }, admin.headers), 409, undefined, 'cannot_impersonate')
  })
})

describe('anonymizing where someone took the author\'s address first', () => {
  let fresh: TestApp
  beforeAll(async () => {
    fresh = await createTestApp({ ACCOUNT_DELETION_CONTENT: 'anonymize', ACCOUNT_DELETION_GRACE_DAYS: '3' })
  })
  afterAll(() => fresh.close())

  it('hands over only what others could read, to an author found by its kind: whoever holds its old address gets nothing', async () => {
    // Someone who signed up with the author's address before it was reserved (written straight to the table).
    const squatter = await seedAndLogin(fresh.app)
    await fresh.db.updateTable('users').set({ email: 'deleted-user@users.invalid' }).where('id', '=', squatter.user.id).execute()
    const who = await seedAndLogin(fresh.app)
    const write = async (body: object) => (await post(fresh, `${V2}/posts/`, { title: 'Mine', text: 'Written before I left', ...body }, who.headers)).json().id as number
    const published = await write({})
    const unlisted = await write({ visibility: 'unlisted' })
    const draft = await write({ status: 'draft' })
    const privatePost = await write({ visibility: 'private' })
    const deletedByMe = await write({})
    await fresh.app.inject({ method: 'DELETE', url: `${V2}/posts/${deletedByMe}`, headers: who.headers })
    expect((await deleteMe(fresh, who)).statusCode).toBe(202)
    await fresh.app.services.accountDeletion.purgeDue(Date.now() + 4 * DAY_MS)

    const authors = await fresh.db.selectFrom('posts').select(['id', 'author_id']).where('id', 'in', [published, unlisted, draft, privatePost, deletedByMe]).execute()
    // The draft, the private post and the one already deleted went with the account.
    expect(authors.map((row) => row.id).sort()).toEqual([published, unlisted].sort())
    const author = await fresh.db.selectFrom('users').select(['id', 'kind', 'is_active']).where('id', '=', authors[0]!.author_id).executeTakeFirstOrThrow()
    expect(author).toMatchObject({ kind: 'deleted_author' })
    expect(Boolean(author.is_active)).toBe(false)
    expect(author.id).not.toBe(squatter.user.id)
    expect(new Set(authors.map((row) => row.author_id))).toEqual(new Set([author.id]))
    expect((await fresh.app.inject({ url: `${V2}/posts/?author_id=${squatter.user.id}`, headers: squatter.headers })).json().total_count).toBe(0)
  })

})

describe('an account that cannot go yet', () => {
  it('is held back and logged once a try, with the wait doubling, while the others due go', async () => {
    const lines: { msg: string; userId?: number; failures?: number }[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const watched = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger })
    try {
      // Two owners of an organization: one deletes their account (another owner is left), then the
      // other deactivates theirs with version 1's soft delete, and the first is its last owner.
      const leaving = await seedAndLogin(t.app)
      const coOwner = await seedAndLogin(t.app, { username: `${leaving.user.username}c`, email: `c${leaving.user.email}` })
      const org = (await post(t, `${V2}/orgs`, { name: 'Left Behind' }, leaving.headers)).json()
      await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: coOwner.user.id, role: 'owner', created_at: new Date().toISOString() }).execute()
      expect((await deleteMe(t, leaving)).statusCode).toBe(202)
      expect((await t.app.inject({ method: 'DELETE', url: `${V1}/users/${coOwner.user.id}`, headers: coOwner.headers })).statusCode).toBe(200)
      const { who: plain } = await withPost(t)
      expect((await deleteMe(t, plain)).statusCode).toBe(202)

      const exists = async (id: number) => (await t.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
      const tries = () => lines.filter((line) => line.userId === leaving.user.id)
      const due = Date.now() + 15 * DAY_MS
      await watched.services.accountDeletion.purgeDue(due)
      expect(await exists(plain.user.id)).toBe(false)
      expect(await exists(leaving.user.id)).toBe(true)
      expect(tries()).toMatchObject([{ failures: 1, msg: 'removing an account whose deletion is due failed; it is tried again later' }])
      // Not tried again within the minute, then tried again and held back two.
      await watched.services.accountDeletion.purgeDue(due + 30_000)
      expect(tries()).toHaveLength(1)
      await watched.services.accountDeletion.purgeDue(due + 61_000)
      expect(tries()).toMatchObject([{ failures: 1 }, { failures: 2 }])
      await watched.services.accountDeletion.purgeDue(due + 121_000)
      expect(tries()).toHaveLength(2)
      // A superuser restores the other owner: the next try removes the account.
      const superuser = await seedAndLogin(t.app, { username: `${leaving.user.username}s`, email: `s${leaving.user.email}` }, { superuser: true })
      expect((await post(t, `${V1}/users/${coOwner.user.id}/restore`, {}, superuser.headers)).statusCode).toBe(200)
      await watched.services.accountDeletion.purgeDue(due + 182_000)
      expect(await exists(leaving.user.id)).toBe(false)
      expect(tries()).toHaveLength(2)
    } finally {
      await watched.close()
    }
  })
})
