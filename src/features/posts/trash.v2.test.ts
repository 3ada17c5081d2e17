// The trash through HTTP on both databases (docs/api.md "Trash"): version 2's delete moves a post
// to its author's trash for POST_TRASH_DAYS, gone from every read; its author brings back what
// they deleted (a superuser anything); `?permanent=true` removes it for good; the cleanup removes
// what is due once, whichever process gets there; version 1's delete is unchanged. Who sees and
// restores a trashed post of every visibility and status is the access matrix's
// (post-access.v2.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { createLogger } from '../../../src/logger.js'
import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { multipart } from '../../../test/helpers/multipart.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'

interface TrashedPost {
  id: number
  title: string
  deleted_at: string
  purge_at: string
  trashed_by: number | null
}
interface TrashPage {
  data: TrashedPost[]
  total_count: number
}

const TRASH_DAYS = 2
const DAY_MS = 86_400_000

let t: TestApp
let author: LoggedIn
let other: LoggedIn
let orgAdmin: LoggedIn
let superuser: LoggedIn
let orgId: number

const call = (who: LoggedIn | null, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: url.startsWith('/services') ? url : `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(payload: object = {}): Promise<number> {
  const response = await call(author, 'POST', '/posts', { title: 'To be deleted', text: 'Some text', ...payload })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

const trashOf = async (who: LoggedIn) => (await call(who, 'GET', '/users/me/trash')).json<TrashPage>()
const eventsOf = async (id: number) => (await t.db.selectFrom('change_events').select('type').where('subject', '=', `post:${id}`).orderBy('id').execute()).map((row) => row.type)
const rowOf = (id: number) => t.db.selectFrom('posts').select(['id', 'is_deleted', 'trashed_until']).where('id', '=', id).executeTakeFirst()

beforeAll(async () => {
  t = await createTestApp({ POST_TRASH_DAYS: String(TRASH_DAYS) })
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  orgAdmin = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  orgId = (await call(orgAdmin, 'POST', '/orgs', { name: 'Trash org' })).json<{ id: number }>().id
  await t.db.insertInto('org_memberships').values({ org_id: orgId, user_id: author.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
})

afterAll(async () => {
  await t.close()
})

describe('the trash', () => {
  it("moves a deleted post to its author's trash for POST_TRASH_DAYS, gone from every read, and brings it back as it was", async () => {
    const id = await newPost({ tags: ['kept'] })
    const deleted = await call(author, 'DELETE', `/posts/${id}`)
    expect(deleted.json()).toEqual({ message: 'Post deleted' })
    expectError(await call(author, 'GET', `/posts/${id}`), 404, 'Post not found', 'post_not_found')
    expect((await call(author, 'GET', '/users/me/posts')).json<{ data: { id: number }[] }>().data.map((post) => post.id)).not.toContain(id)

    const trash = await trashOf(author)
    expect(trash.total_count).toBe(1)
    const [trashed] = trash.data
    expect(trashed).toMatchObject({ id, title: 'To be deleted', trashed_by: author.user.id, tags: ['kept'] })
    expect(Date.parse(trashed!.purge_at) - Date.parse(trashed!.deleted_at)).toBe(TRASH_DAYS * DAY_MS)
    expect((await trashOf(other)).total_count).toBe(0)

    const restored = await call(author, 'POST', `/posts/${id}/restore`)
    expect(restored.statusCode, restored.body).toBe(200)
    expect(restored.json()).toMatchObject({ id, title: 'To be deleted', tags: ['kept'] })
    expect((await call(other, 'GET', `/posts/${id}`)).statusCode).toBe(200)
    expect((await trashOf(author)).total_count).toBe(0)
    expect(await eventsOf(id)).toEqual(['post.created', 'post.deleted', 'post.trashed', 'post.restored'])
    // A post that is not in the trash has nothing to restore.
    expectError(await call(author, 'POST', `/posts/${id}/restore`), 404, 'Post not found', 'post_not_found')
  })

  it("is its author's: nobody else lists or restores it, but a superuser restores anything", async () => {
    const id = await newPost()
    expect((await call(author, 'DELETE', `/posts/${id}`)).statusCode).toBe(200)
    expectError(await call(other, 'POST', `/posts/${id}/restore`), 404, 'Post not found', 'post_not_found')
    expectError(await call(other, 'DELETE', `/posts/${id}?permanent=true`), 404, 'Post not found', 'post_not_found')
    expectError(await call(null, 'POST', `/posts/${id}/restore`), 401)
    expect((await call(superuser, 'POST', `/posts/${id}/restore`)).statusCode).toBe(200)
  })

  it('keeps what an admin of its organization deleted for a superuser to restore, not its author', async () => {
    const id = await newPost({ visibility: 'org', org_id: orgId })
    expect((await call(orgAdmin, 'DELETE', `/posts/${id}`)).statusCode).toBe(200)
    expect((await trashOf(author)).data.find((post) => post.id === id)).toMatchObject({ trashed_by: orgAdmin.user.id })
    expect((await trashOf(orgAdmin)).data.map((post) => post.id)).not.toContain(id)
    expectError(await call(author, 'POST', `/posts/${id}/restore`), 403, undefined, 'post_trashed_by_another')
    expectError(await call(orgAdmin, 'POST', `/posts/${id}/restore`), 404, 'Post not found', 'post_not_found')
    expect((await call(superuser, 'POST', `/posts/${id}/restore`)).statusCode).toBe(200)
    // Removing it for good is its author's or a superuser's: the admin may only trash it.
    expectError(await call(orgAdmin, 'DELETE', `/posts/${id}?permanent=true`), 403)
  })

  it('removes a post for good with ?permanent=true, live or from the trash, files and all', async () => {
    const live = await newPost()
    const deleted = await call(author, 'DELETE', `/posts/${live}?permanent=true`)
    expect(deleted.json()).toEqual({ message: 'Post deleted from the database' })
    expect(await rowOf(live)).toBeUndefined()
    expect(await eventsOf(live)).toEqual(['post.created', 'post.removed'])

    const form = multipart([{ field: 'file', filename: 'notes.txt', contentType: 'text/plain', data: Buffer.from('attached') }])
    const upload = await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...author.headers } })
    const fileId = upload.json<{ id: number }>().id
    const trashed = await newPost({ attachments: [fileId] })
    expect((await call(author, 'DELETE', `/posts/${trashed}`)).statusCode).toBe(200)
    // The trash keeps its files for a restore, unreadable meanwhile.
    expect(await t.db.selectFrom('files').select('id').where('id', '=', fileId).executeTakeFirst()).toBeDefined()
    expectError(await call(author, 'GET', `/files/${fileId}`), 404, undefined, 'file_not_found')
    expect((await call(author, 'DELETE', `/posts/${trashed}?permanent=true`)).statusCode).toBe(200)
    expect(await rowOf(trashed)).toBeUndefined()
    expect(await t.db.selectFrom('files').select('id').where('id', '=', fileId).executeTakeFirst()).toBeUndefined()
    expect((await trashOf(author)).data.map((post) => post.id)).not.toContain(trashed)
    expectError(await call(author, 'DELETE', `/posts/${trashed}?permanent=true`), 404, 'Post not found', 'post_not_found')
  })

  it('removes what is due for good once, however many processes clean up at the same time, and keeps the rest', async () => {
    const due = [await newPost(), await newPost(), await newPost()]
    const notDue = await newPost()
    for (const id of [...due, notDue]) expect((await call(author, 'DELETE', `/posts/${id}`)).statusCode).toBe(200)
    await t.db.updateTable('posts').set({ trashed_until: new Date(Date.now() - 1000).toISOString() }).where('id', 'in', due).execute()

    const second = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger: createLogger('silent') })
    try {
      // Two apps in one test process cannot hold SQLite's one writer at once (each waits synchronously on the other): there they take turns.
      const [first, other] = [t.app.services.posts, second.services.posts]
      const purged = dialect() === 'postgres' ? await Promise.all([first.purgeExpiredTrash(), other.purgeExpiredTrash()]) : [await first.purgeExpiredTrash(), await other.purgeExpiredTrash()]
      expect(purged[0] + purged[1]).toBe(due.length)
    } finally {
      await second.close()
    }
    for (const id of due) {
      expect(await rowOf(id)).toBeUndefined()
      expect((await eventsOf(id)).filter((type) => type === 'post.removed')).toHaveLength(1)
    }
    expect(await rowOf(notDue)).toMatchObject({ id: notDue })
    expect((await trashOf(author)).data.map((post) => post.id)).toContain(notDue)
  })

  it("leaves version 1's delete as it was: deleted, never in the trash, never removed by the cleanup", async () => {
    const id = await newPost()
    const deleted = await call(author, 'DELETE', `${V1}/posts/${id}`)
    expect(deleted.json()).toEqual({ message: 'Post deleted' })
    expect(await rowOf(id)).toMatchObject({ trashed_until: null })
    expect((await trashOf(author)).data.map((post) => post.id)).not.toContain(id)
    await t.app.services.posts.purgeExpiredTrash()
    expect(await rowOf(id)).toMatchObject({ id })
    expectError(await call(author, 'POST', `/posts/${id}/restore`), 404, 'Post not found', 'post_not_found')
  })
})
