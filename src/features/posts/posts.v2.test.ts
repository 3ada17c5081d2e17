import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { multipart } from '../../../test/helpers/multipart.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin,V1, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let author: LoggedIn
let other: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  for (const title of ['First', 'Second about cats', 'Third']) {
    await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title, text: 'body' }, headers: author.headers })
  }
})
afterAll(() => t.close())

describe('v2 posts', () => {
  it('lists posts in the envelope, newest first', async () => {
    const response = await t.app.inject({ url: `${V2}/posts/?limit=2` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({ total_count: 3, has_more: true, page: 1, items_per_page: 2 })
    expect(body.data.map((p: { title: string }) => p.title)).toEqual(['Third', 'Second about cats'])
    const searched = (await t.app.inject({ url: `${V2}/posts/?search=CATS` })).json()
    expect(searched).toMatchObject({ total_count: 1, has_more: false })
    const byAuthor = (await t.app.inject({ url: `${V2}/posts/?author_id=${other.user.id}` })).json()
    expect(byAuthor).toMatchObject({ total_count: 0, data: [] })
  })

  it('keeps v1 listing an array', async () => {
    const response = await t.app.inject({ url: `${V1}/posts/` })
    expect(Array.isArray(response.json())).toBe(true)
  })

  it('shares the post rules: create as the caller, author-only edits', async () => {
    const created = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'Mine', text: 'x' }, headers: other.headers })
    expect(created.statusCode).toBe(201)
    expect(created.json().author_id).toBe(other.user.id)
    const id = created.json().id
    expectError(
      await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${id}`, payload: { title: 'Stolen' }, headers: author.headers }),
      403,
      'Not enough permissions',
    )
    const removed = await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${id}`, headers: other.headers })
    expect(removed.json()).toEqual({ message: 'Post deleted' })
    expectError(await t.app.inject({ url: `${V2}/posts/${id}` }), 404, 'Post not found')
  })
})

describe('v2 posts: visibility, status and organizations', () => {
  let owner: LoggedIn
  let member: LoggedIn
  let superuser: LoggedIn
  let org: { id: number; slug: string }
  let elsewhere: { id: number; slug: string }
  const post = (headers: Record<string, string>, payload: object) => t.app.inject({ method: 'POST', url: `${V2}/posts`, headers, payload })
  const patch = (headers: Record<string, string>, id: number, payload: object) => t.app.inject({ method: 'PATCH', url: `${V2}/posts/${id}`, headers, payload })
  const eventsOf = (id: number) =>
    t.db.selectFrom('change_events').select('type').where('subject', '=', `post:${id}`).orderBy('id').execute().then((rows) => rows.map((row) => row.type))
  const securityEventsOf = (userId: number) =>
    t.db.selectFrom('security_events').select(['type', 'post_id']).where('user_id', '=', userId).where('type', 'like', 'post%').orderBy('created_at').execute()

  beforeAll(async () => {
    owner = await seedAndLogin(t.app)
    member = await seedAndLogin(t.app)
    superuser = await seedAndLogin(t.app, {}, { superuser: true })
    org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: owner.headers, payload: { name: 'Writers' } })).json()
    elsewhere = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: owner.headers, payload: { name: 'Elsewhere' } })).json()
    await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: member.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
  })

  it('writes public and published posts by default, in both versions', async () => {
    const v2 = (await post(member.headers, { title: 'Default', text: 'x' })).json()
    expect(v2).toMatchObject({ visibility: 'public', status: 'published', org_id: null, published_at: v2.created_at })
    const v1 = await t.app.inject({ method: 'POST', url: `${V1}/posts/`, headers: member.headers, payload: { title: 'Old client', text: 'x' } })
    expect(Object.keys(v1.json()).sort()).toEqual(['author_id', 'created_at', 'id', 'media_url', 'text', 'title', 'updated_at'])
    expect((await t.app.inject({ url: `${V2}/posts/${v1.json().id}` })).json()).toMatchObject({ visibility: 'public', status: 'published' })
    expectError(await t.app.inject({ method: 'POST', url: `${V1}/posts/`, headers: member.headers, payload: { title: 'x', text: 'x', visibility: 'private' } }), 422)
  })

  it('needs an organization for org visibility, and the author a member of it', async () => {
    const missing = await post(member.headers, { title: 'Team', text: 'x', visibility: 'org' })
    expectError(missing, 422, 'A post with org visibility needs an org_id')
    expect(missing.json().errors).toEqual([expect.objectContaining({ loc: ['body', 'org_id'], type: 'required' })])
    expectError(await post(member.headers, { title: 'Team', text: 'x', visibility: 'org', org_id: elsewhere.id }), 403, undefined, 'not_a_member')
    expectError(await post(member.headers, { title: 'Team', text: 'x', org_id: 999_999 }), 403, undefined, 'not_a_member')
    const created = await post(member.headers, { title: 'Team', text: 'x', visibility: 'org', org_id: org.id })
    expect(created.json()).toMatchObject({ visibility: 'org', org_id: org.id })
    expectError(await patch(member.headers, created.json().id, { org_id: null }), 422)
  })

  it('moves a post between organizations only with membership of both, its author in the one it joins', async () => {
    const id = (await post(member.headers, { title: 'Mover', text: 'x', org_id: org.id })).json().id
    expectError(await patch(member.headers, id, { org_id: elsewhere.id }), 403, undefined, 'not_a_member')
    // The owner belongs to both, but the author does not belong to the other.
    expectError(await patch(owner.headers, id, { org_id: elsewhere.id }), 403, undefined, 'not_a_member')
    await t.db.insertInto('org_memberships').values({ org_id: elsewhere.id, user_id: member.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    expect((await patch(member.headers, id, { org_id: elsewhere.id })).json()).toMatchObject({ org_id: elsewhere.id })
    expect((await patch(member.headers, id, { org_id: null })).json()).toMatchObject({ org_id: null })
    await t.db.deleteFrom('org_memberships').where('org_id', '=', elsewhere.id).where('user_id', '=', member.user.id).execute()
  })

  it("lets an organization's admins and owners edit its posts, but not a private one, and answers 404 to those who may not read", async () => {
    const id = (await post(member.headers, { title: 'Shared draft', text: 'x', visibility: 'org', status: 'draft', org_id: org.id })).json().id
    expect((await patch(owner.headers, id, { title: 'Edited by the owner' })).statusCode).toBe(200)
    expectError(await patch(other.headers, id, { title: 'Outsider' }), 404, 'Post not found', 'post_not_found')
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${id}`, headers: other.headers }), 404, 'Post not found', 'post_not_found')
    const secret = (await post(member.headers, { title: 'Mine only', text: 'x', visibility: 'private', org_id: org.id })).json().id
    expectError(await patch(owner.headers, secret, { title: 'Peek' }), 404, 'Post not found')
    const published = (await post(member.headers, { title: 'Team news', text: 'x', visibility: 'org', org_id: org.id })).json().id
    const peer = await seedAndLogin(t.app)
    await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: peer.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    expect((await t.app.inject({ url: `${V2}/posts/${published}`, headers: peer.headers })).statusCode).toBe(200)
    expectError(await patch(peer.headers, published, { title: 'Not mine' }), 403, 'Not enough permissions')
  })

  it("lets an organization's admin keep a member's attachments and attach none of the member's other files", async () => {
    const upload = async (who: LoggedIn, text: string) => {
      const form = multipart([{ field: 'file', filename: 'note.txt', contentType: 'text/plain', data: Buffer.from(text) }])
      const answer = await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...who.headers } })
      expect(answer.statusCode, answer.body).toBe(201)
      return answer.json().id as number
    }
    const attached = await upload(member, 'on the post')
    const privateFile = await upload(member, "the member's own, attached nowhere")
    const id = (await post(member.headers, { title: 'With a file', text: 'x', visibility: 'org', org_id: org.id, attachments: [attached] })).json().id
    // The owner (an admin) may edit the post and keep or drop what is attached…
    expect((await patch(owner.headers, id, { title: 'Edited', attachments: [attached] })).statusCode).toBe(200)
    // …but not attach the member's other file, which would open it to them (and to every reader).
    const grab = await patch(owner.headers, id, { attachments: [attached, privateFile] })
    expectError(grab, 422, "Attachments must be the post author's own completed files, attached by that author")
    expectError(await t.app.inject({ url: `${V2}/files/${privateFile}`, headers: owner.headers }), 404, undefined, 'file_not_found')
    expectError(await patch(superuser.headers, id, { attachments: [attached, privateFile] }), 422)
    expect((await t.app.inject({ url: `${V2}/posts/${id}`, headers: member.headers })).json().attachments.map((file: { id: number }) => file.id)).toEqual([attached])
    // The author attaches their own file.
    expect((await patch(member.headers, id, { attachments: [attached, privateFile] })).statusCode).toBe(200)
    expect((await patch(owner.headers, id, { attachments: [privateFile] })).statusCode).toBe(200)
  })

  it('publishes a draft once: published_at on first publish, post.updated then post.published', async () => {
    const draft = (await post(member.headers, { title: 'Draft', text: 'x', status: 'draft' })).json()
    expect(draft).toMatchObject({ status: 'draft', published_at: null })
    const published = (await patch(member.headers, draft.id, { status: 'published' })).json()
    expect(published.published_at).toEqual(expect.any(String))
    expect((await patch(member.headers, draft.id, { status: 'draft' })).json()).toMatchObject({ status: 'draft', published_at: published.published_at })
    expect((await patch(member.headers, draft.id, { status: 'published' })).json().published_at).toBe(published.published_at)
    expect(await eventsOf(draft.id)).toEqual(['post.created', 'post.updated', 'post.published', 'post.updated', 'post.updated', 'post.published'])
    const data = JSON.parse((await t.db.selectFrom('change_events').select('data').where('subject', '=', `post:${draft.id}`).orderBy('id', 'desc').executeTakeFirstOrThrow()).data)
    expect(data).toMatchObject({ visibility: 'public', status: 'published', org_id: null })
  })

  it("records a superuser's read, list and change of a post no rule opens to them, and nothing for one it does", async () => {
    const secret = (await post(member.headers, { title: 'Diary', text: 'x', visibility: 'private' })).json().id
    const open = (await post(member.headers, { title: 'Open', text: 'x' })).json().id
    expect((await t.app.inject({ url: `${V2}/posts/${open}`, headers: superuser.headers })).statusCode).toBe(200)
    expect(await securityEventsOf(superuser.user.id)).toEqual([])
    expect((await t.app.inject({ url: `${V2}/posts/${secret}`, headers: superuser.headers })).statusCode).toBe(200)
    expect((await patch(superuser.headers, secret, { title: 'Moderated' })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/posts/?author_id=${member.user.id}&visibility=private`, headers: superuser.headers })).json().data.map((p: { id: number }) => p.id)).toContain(secret)
    expect(await securityEventsOf(superuser.user.id)).toEqual([
      { type: 'post_read_as_superuser', post_id: secret },
      { type: 'post_changed_as_superuser', post_id: secret },
      { type: 'posts_listed_as_superuser', post_id: null },
    ])
    const log = (await t.app.inject({ url: `${V2}/security-events?user_id=${superuser.user.id}`, headers: superuser.headers })).json()
    expect(log.data.map((event: { type: string; post_id?: number }) => [event.type, event.post_id])).toContainEqual(['post_read_as_superuser', secret])
  })

  it("keeps an organization's posts with their authors when it is deleted: an org post is then its author's alone", async () => {
    const team = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: owner.headers, payload: { name: 'Short-lived' } })).json()
    await t.db.insertInto('org_memberships').values({ org_id: team.id, user_id: member.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    const id = (await post(owner.headers, { title: 'Team only', text: 'x', visibility: 'org', org_id: team.id })).json().id
    expect((await t.app.inject({ url: `${V2}/posts/${id}`, headers: member.headers })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/orgs/${team.id}`, headers: owner.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${V2}/posts/${id}`, headers: member.headers }), 404, 'Post not found')
    expect((await t.app.inject({ url: `${V2}/posts/${id}`, headers: owner.headers })).json()).toMatchObject({ visibility: 'org', org_id: null })
    expect((await patch(owner.headers, id, { title: 'Still its author’s' })).statusCode).toBe(200)
    expectError(await patch(owner.headers, id, { visibility: 'org' }), 422)
    expect((await patch(owner.headers, id, { visibility: 'private' })).json()).toMatchObject({ visibility: 'private', org_id: null })
  })

  it("lists the caller's own posts in any state, narrowed by status and visibility", async () => {
    const writer = await seedAndLogin(t.app)
    for (const [visibility, status] of [['private', 'draft'], ['public', 'published'], ['unlisted', 'draft']] as const) await post(writer.headers, { title: `${visibility} ${status}`, text: 'x', visibility, status })
    const own = (await t.app.inject({ url: `${V2}/users/me/posts`, headers: writer.headers })).json()
    expect(own).toMatchObject({ total_count: 3 })
    const drafts = (await t.app.inject({ url: `${V2}/users/me/posts?status=draft&visibility=private`, headers: writer.headers })).json()
    expect(drafts.data.map((p: { title: string }) => p.title)).toEqual(['private draft'])
    expectError(await t.app.inject({ url: `${V2}/users/me/posts` }), 401)
  })

  it('refuses a read-only API key any change, and says so in the permissions', async () => {
    const key = (await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: member.headers, payload: { name: 'reader', scopes: ['read'] } })).json().key
    const id = (await post(member.headers, { title: 'Keyed', text: 'x', status: 'draft' })).json().id
    expect((await t.app.inject({ url: `${V2}/posts/${id}/permissions`, headers: { 'x-api-key': key } })).json()).toEqual({ read: true, edit: false, delete: false, publish: false })
    expect((await t.app.inject({ url: `${V2}/posts/${id}/permissions`, headers: member.headers })).json()).toEqual({ read: true, edit: true, delete: true, publish: true })
    expect((await patch({ 'x-api-key': key }, id, { title: 'No' })).statusCode).toBe(403)
  })
})
