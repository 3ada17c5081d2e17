// The trigger-maintained totals behind total_count must always equal a real count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { countLiveRows } from '../helpers/counts.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, seedUser,V1, V2 } from '../helpers/users.js'

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

const realCounts = () => countLiveRows(t.db)

async function reportedCounts() {
  const users = (await t.app.inject({ url: `${V1}/users/` })).json().total_count
  const posts = (await t.app.inject({ url: `${V2}/posts/` })).json().total_count
  return { users, posts }
}

const write = async (headers: Record<string, string>, n: number) => {
  const ids: number[] = []
  for (let i = 0; i < n; i++) {
    const response = await t.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: { title: `t${i}`, text: 'x' }, headers })
    ids.push(response.json().id)
  }
  return ids
}

describe('row counts', () => {
  it('track creates, soft deletes, permanent deletes and cascades exactly', async () => {
    const steps: (() => Promise<unknown>)[] = []
    const alice = await seedAndLogin(t.app)
    const bob = await seedAndLogin(t.app)
    const alicePosts = await write(alice.headers, 3)
    await write(bob.headers, 2)
    expect(await reportedCounts()).toEqual(await realCounts())

    steps.push(() => t.app.inject({ method: 'DELETE', url: `${V1}/posts/${alicePosts[0]}`, headers: alice.headers }))
    steps.push(() => t.app.inject({ method: 'DELETE', url: `${V1}/posts/${alicePosts[1]}/permanent`, headers: admin.headers }))
    // A soft-deleted author's posts go with them...
    steps.push(() => t.app.inject({ method: 'DELETE', url: `${V1}/users/${bob.user.id}`, headers: bob.headers }))
    // ...and a permanently removed user's posts cascade away.
    steps.push(() => t.app.inject({ method: 'DELETE', url: `${V1}/users/${alice.user.id}/permanent`, headers: admin.headers }))
    steps.push(() => seedUser(t.app))
    for (const step of steps) {
      await step()
      expect(await reportedCounts()).toEqual(await realCounts())
    }
  })

  it('stay exact under concurrent writers', async () => {
    const writers = await Promise.all([seedAndLogin(t.app), seedAndLogin(t.app), seedAndLogin(t.app)])
    await Promise.all(writers.map((writer) => write(writer.headers, 10)))
    await Promise.all(Array.from({ length: 5 }, () => seedUser(t.app)))
    expect(await reportedCounts()).toEqual(await realCounts())
  })

  it('hide the posts of a soft-deleted user in the same step', async () => {
    const carol = await seedAndLogin(t.app)
    const [post] = await write(carol.headers, 1)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${carol.user.id}`, headers: carol.headers })
    const row = await t.db.selectFrom('posts').select(['is_deleted', 'deleted_at']).where('id', '=', post ?? 0).executeTakeFirstOrThrow()
    expect(Boolean(row.is_deleted)).toBe(true)
    expect(row.deleted_at).not.toBeNull()
  })

  it('refuse a post from an author deleted in the meantime', async () => {
    const dave = await seedAndLogin(t.app)
    const created = await t.app.services.posts.create({ id: dave.user.id, isSuperuser: false }, { title: 'ok', text: 'ok' })
    expect(created.authorId).toBe(dave.user.id)
    await t.app.services.users.softDelete({ id: dave.user.id, isSuperuser: false }, dave.user.id)
    await expect(t.app.services.posts.create({ id: dave.user.id, isSuperuser: false }, { title: 'late', text: 'late' })).rejects.toThrow(
      'Not authenticated',
    )
  })
})
