// Tags through HTTP on both databases (docs/api.md "Tags"): normalized on every write (trimmed,
// lower-cased, NFC, repeats one), at most ten of at most 32 characters; `?tag=` on every post
// list (version 1's too) and on ranked search; GET /tags counted over what each caller may list; an edit replaces
// them. Who finds which post by its tag in every visibility and status is the access matrix's
// (post-access.v2.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'

interface Read {
  id: number
  tags: string[]
}

let t: TestApp
let author: LoggedIn
let other: LoggedIn
/** This file's tags: no other file's posts carry them. */
const tag = (name: string) => `${name}${process.pid % 1000}${Date.now() % 100000}`
const go = tag('go')
const sql = tag('sql')

const call = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function write(who: LoggedIn, payload: object): Promise<Read> {
  const response = await call(who, 'POST', '/posts', { title: 'Tagged', text: 'A tagged post', ...payload })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<Read>()
}

const ids = async (who: LoggedIn | null, url: string) => {
  const response = await call(who, 'GET', url)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<{ data: ({ id: number } | { post: { id: number } })[] }>().data.map((item) => ('post' in item ? item.post.id : item.id)).sort((a, b) => a - b)
}

const counts = async (who: LoggedIn | null) => {
  const response = await call(who, 'GET', '/tags?limit=100')
  expect(response.statusCode, response.body).toBe(200)
  return Object.fromEntries(response.json<{ data: { tag: string; count: number }[] }>().data.filter((row) => row.tag === go || row.tag === sql).map((row) => [row.tag, row.count]))
}

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
})

afterAll(async () => {
  await t.close()
})

describe('tags', () => {
  it('are normalized on create: trimmed, lower-cased, NFC, repeats one', async () => {
    const post = await write(author, { tags: [` ${go.toUpperCase()} `, go, 'Cafe\u0301', 'café'] })
    expect(post.tags).toEqual([go, 'café'])
    expect((await call(null, 'GET', `/posts/${post.id}`)).json<Read>().tags).toEqual([go, 'café'])
  })

  it('refuses more than ten, an empty one and one over 32 characters', async () => {
    for (const tags of [Array.from({ length: 11 }, (_, i) => `t${i}`), ['   '], ['x'.repeat(33)]]) {
      const response = await call(author, 'POST', '/posts', { title: 'x', text: 'y', tags })
      expect(response.statusCode, JSON.stringify(tags)).toBe(422)
      expect(response.json<{ code: string }>().code).toBe('validation_failed')
    }
    // Eleven that are ten once normalized are ten.
    expect((await write(author, { tags: [...Array.from({ length: 10 }, (_, i) => `t${i}`), 'T0'] })).tags).toHaveLength(10)
  })

  it('narrow every post list (both versions) and ranked search, within what the caller may list; GET /tags counts the same posts', async () => {
    const open = await write(author, { tags: [go, sql] })
    const secret = await write(author, { tags: [go], visibility: 'private' })
    const draft = await write(other, { tags: [go], status: 'draft' })
    const onlySql = await write(other, { tags: [sql] })
    const before = { anyone: await counts(null), author: await counts(author), other: await counts(other) }
    expect(await ids(null, `/posts?tag=${go}&limit=100`)).toEqual(expect.arrayContaining([open.id]))
    expect(await ids(null, `/posts?tag=${go}&limit=100`)).not.toContain(secret.id)
    expect(await ids(author, `/posts?tag=${go}&limit=100`)).toContain(secret.id)
    expect(await ids(author, `/posts?tag=${go}&limit=100`)).not.toContain(draft.id)
    expect(await ids(other, `/users/me/posts?tag=${go.toUpperCase()}`)).toEqual([draft.id])
    expect(await ids(null, `/posts?tag=${sql}&sort=title&limit=100`)).toEqual([open.id, onlySql.id])
    expect(await ids(null, `/search?q=tagged&tag=${sql}`)).toEqual([open.id, onlySql.id])
    // Version 1's list takes it too (its posts do not show their tags).
    const v1 = await t.app.inject({ url: `${V1}/posts?tag=${sql.toUpperCase()}&limit=100` })
    expect(v1.statusCode, v1.body).toBe(200)
    expect(v1.json<{ id: number }[]>().map((post) => post.id).sort((a, b) => a - b)).toEqual([open.id, onlySql.id].sort((a, b) => a - b))
    const v1Ids = async (who: LoggedIn | null) => (await t.app.inject({ url: `${V1}/posts?tag=${go}&limit=100`, headers: who?.headers ?? {} })).json<{ id: number }[]>().map((post) => post.id)
    expect(await v1Ids(null)).not.toContain(secret.id)
    expect(await v1Ids(author)).toContain(secret.id)
    expect(before.anyone[sql]).toBe(2)
    expect(before.author[go]! - before.anyone[go]!).toBe(1)
    expect(before.other[go]! - before.anyone[go]!).toBe(1)
  })

  it('are replaced by an edit, and a post without them drops out of the tag', async () => {
    const post = await write(author, { tags: [sql] })
    const edited = await call(author, 'PATCH', `/posts/${post.id}`, { tags: [go] })
    expect(edited.json<Read>().tags).toEqual([go])
    expect(await ids(null, `/posts?tag=${sql}&limit=100`)).not.toContain(post.id)
    expect(await ids(null, `/posts?tag=${go}&limit=100`)).toContain(post.id)
    const cleared = await call(author, 'PATCH', `/posts/${post.id}`, { tags: [] })
    expect(cleared.json<Read>().tags).toEqual([])
    expect(await ids(null, `/posts?tag=${go}&limit=100`)).not.toContain(post.id)
  })
})
