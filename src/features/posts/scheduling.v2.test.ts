// Scheduled publishing through HTTP on both databases (docs/api.md "Scheduled publishing"): a post
// with a `publish_at` is `scheduled`, read as a draft until the publishing job sends it out on its
// own (`post.updated`, `post.published`); rescheduling and cancelling work; a banned or deleted
// author's post does not go out; two processes never publish one twice. Who reads a scheduled
// post is the access matrix's (post-access.v2.test.ts), where it is one of the statuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { createLogger } from '../../../src/logger.js'
import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

interface PostRead {
  id: number
  status: string
  publish_at: string | null
  published_at: string | null
}

let t: TestApp
let author: LoggedIn
let reader: LoggedIn
let superuser: LoggedIn

const HOUR_MS = 3_600_000
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR_MS).toISOString()

const call = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function scheduled(by: LoggedIn = author, at = inHours(1)): Promise<PostRead> {
  const response = await call(by, 'POST', '/posts', { title: 'Coming soon', text: 'Later', publish_at: at })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<PostRead>()
}

const eventsOf = async (id: number) => (await t.db.selectFrom('change_events').select('type').where('subject', '=', `post:${id}`).orderBy('id').execute()).map((row) => row.type)
/** Makes the post due: its time moved to `at` (in the past, or a moment away). */
const dueAt = (ids: number[], at: string) => t.db.updateTable('posts').set({ publish_at: at }).where('id', 'in', ids).execute()
const statusOf = async (id: number) => (await t.db.selectFrom('posts').select(['status', 'publish_at']).where('id', '=', id).executeTakeFirstOrThrow()).status

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  reader = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
})

afterAll(async () => {
  await t.close()
})

describe('scheduled publishing', () => {
  it('keeps a scheduled post a draft to everyone else until the job sends it out on its own, at its time', async () => {
    const at = inHours(1)
    const post = await scheduled(author, at)
    expect(post).toMatchObject({ status: 'scheduled', publish_at: at, published_at: null })
    expectError(await call(reader, 'GET', `/posts/${post.id}`), 404, 'Post not found', 'post_not_found')
    expect((await call(null, 'GET', '/posts')).json<{ data: { id: number }[] }>().data.map((item) => item.id)).not.toContain(post.id)
    const mine = (await call(author, 'GET', '/users/me/posts?status=scheduled')).json<{ data: PostRead[] }>().data
    expect(mine.map((item) => item.id)).toEqual([post.id])
    expect(await eventsOf(post.id)).toEqual(['post.created', 'post.scheduled'])

    // Its time moves to a moment from now, and a commit wakes the job as scheduling does: it sleeps until then, then publishes.
    const soon = new Date(Date.now() + 500).toISOString()
    await dueAt([post.id], soon)
    t.app.services.jobs.kick('scheduled-posts')
    await waitFor(async () => (await call(reader, 'GET', `/posts/${post.id}`)).statusCode === 200)
    expect((await call(reader, 'GET', `/posts/${post.id}`)).json<PostRead>()).toMatchObject({ status: 'published', publish_at: null, published_at: soon })
    expect(await eventsOf(post.id)).toEqual(['post.created', 'post.scheduled', 'post.updated', 'post.published'])
  })

  it('reschedules, cancels and publishes at once; refuses a time that is past, over a year away, or with another status', async () => {
    const post = await scheduled()
    const later = inHours(2)
    const moved = await call(author, 'PATCH', `/posts/${post.id}`, { publish_at: later })
    expect(moved.json<PostRead>()).toMatchObject({ status: 'scheduled', publish_at: later })
    const cancelled = await call(author, 'PATCH', `/posts/${post.id}`, { publish_at: null })
    expect(cancelled.json<PostRead>()).toMatchObject({ status: 'draft', publish_at: null })
    expect(await eventsOf(post.id)).toEqual(['post.created', 'post.scheduled', 'post.updated', 'post.scheduled', 'post.updated'])

    for (const body of [{ status: 'scheduled' }, { publish_at: new Date(Date.now() - 60_000).toISOString() }, { publish_at: inHours(24 * 367) }, { publish_at: inHours(1), status: 'published' }, { publish_at: 'tomorrow' }]) {
      const refused = await call(author, 'PATCH', `/posts/${post.id}`, body)
      expect(refused.statusCode, JSON.stringify(body)).toBe(422)
    }
    expect((await call(author, 'PATCH', `/posts/${post.id}`, { status: 'scheduled', publish_at: inHours(3) })).json<PostRead>().status).toBe('scheduled')
    const now = await call(author, 'PATCH', `/posts/${post.id}`, { status: 'published' })
    expect(now.json<PostRead>()).toMatchObject({ status: 'published', publish_at: null })
    expect((await eventsOf(post.id)).slice(-2)).toEqual(['post.updated', 'post.published'])
    // Nobody but who may publish it schedules it.
    expectError(await call(reader, 'PATCH', `/posts/${post.id}`, { publish_at: inHours(1) }), 403)
  })

  it("does not send out a banned author's post, nor a deleted author's: the first goes back to a draft", async () => {
    const banned = await seedAndLogin(t.app)
    const deleted = await seedAndLogin(t.app)
    const ofBanned = await scheduled(banned)
    const ofDeleted = await scheduled(deleted)
    expect((await call(superuser, 'POST', `/admin/users/${banned.user.id}/ban`, { reason: 'spam' })).statusCode).toBe(200)
    expect((await call(superuser, 'DELETE', `/users/${deleted.user.id}`)).statusCode).toBe(200)
    await dueAt([ofBanned.id, ofDeleted.id], new Date(Date.now() - 1000).toISOString())
    await t.app.services.posts.publishDue()
    expect(await statusOf(ofBanned.id)).toBe('draft')
    expect(await eventsOf(ofBanned.id)).toEqual(['post.created', 'post.scheduled', 'post.updated'])
    expect(await statusOf(ofDeleted.id)).toBe('scheduled')
    expect(await eventsOf(ofDeleted.id)).not.toContain('post.published')
  })

  it('sends each post out once, however many processes run the job at the same time', async () => {
    const posts = [await scheduled(), await scheduled(), await scheduled()]
    const ids = posts.map((post) => post.id)
    await dueAt(ids, new Date(Date.now() - 1000).toISOString())
    const second = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger: createLogger('silent') })
    try {
      const [first, other] = [t.app.services.posts, second.services.posts]
      // Two apps in one test process cannot hold SQLite's one writer at once (each waits synchronously on the other): there they take turns.
      if (dialect() === 'postgres') await Promise.all([first.publishDue(), other.publishDue()])
      else for (const service of [first, other]) await service.publishDue()
    } finally {
      await second.close()
    }
    for (const id of ids) {
      expect(await statusOf(id)).toBe('published')
      expect((await eventsOf(id)).filter((type) => type === 'post.published')).toHaveLength(1)
    }
  })
})
