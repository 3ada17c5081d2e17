// Sorted post lists through HTTP on both databases: every documented column in both directions
// and in combination, walked page by page with cursors, gives the same order as one page holding
// them all, with ties broken by id so no post is read twice or missed; that order is the one the
// values say; a cursor continues only the sort it was written for; bad sorts are 422.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { UNINDEXED_SORT_MAX_POSTS } from './post-sort.js'

interface Listed {
  id: number
  title: string
  created_at: string
  updated_at: string
  comment_count: number
  reaction_counts: Record<string, number>
}
interface Page {
  data: Listed[]
  total_count: number
  has_more: boolean
  next_cursor: string | null
}

let t: TestApp
let author: LoggedIn
let readers: LoggedIn[]
const marker = `sorted${Date.now()}`

const get = (url: string, who: LoggedIn | null = author) => t.app.inject({ url: `${V2}${url}`, headers: who?.headers ?? {} })

/** Every post of a sorted list, page after page by cursor. */
async function walk(sort: string, limit: number): Promise<{ ids: number[]; pages: Page[] }> {
  const pages: Page[] = []
  let cursor: string | null = null
  do {
    const response = await get(`/posts?search=${marker}&sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json<Page>()
    pages.push(page)
    cursor = page.next_cursor
    expect(page.has_more).toBe(cursor !== null)
  } while (cursor !== null)
  return { ids: pages.flatMap((page) => page.data.map((post) => post.id)), pages }
}

/** Every post of a list, by its cursors, from `url` on. */
async function walkAll(url: string): Promise<number[]> {
  const ids: number[] = []
  let cursor: string | null = null
  do {
    const page: Page = (await get(`${url}${cursor ? `&cursor=${cursor}` : ''}`)).json<Page>()
    ids.push(...page.data.map((post) => post.id))
    cursor = page.next_cursor
  } while (cursor !== null)
  return ids
}

beforeAll(async () => {
  t = await createTestApp({ DEFAULT_RATE_LIMIT: '100000/60' })
  author = await seedAndLogin(t.app)
  readers = [await seedAndLogin(t.app), await seedAndLogin(t.app), await seedAndLogin(t.app)]
  // Eleven posts, with titles, reactions and comments that tie in places, and some edited later.
  const titles = ['delta', 'alpha', 'charlie', 'alpha', 'bravo', 'echo', 'bravo', 'alpha', 'foxtrot', 'delta', 'golf']
  const ids: number[] = []
  for (const title of titles) {
    const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: `${marker} ${title}`, text: 'Body' } })
    expect(response.statusCode, response.body).toBe(201)
    ids.push(response.json<{ id: number }>().id)
  }
  for (const [i, id] of ids.entries()) {
    for (const reader of readers.slice(0, i % 4)) {
      expect((await t.app.inject({ method: 'PUT', url: `${V2}/posts/${id}/reactions/like`, headers: reader.headers })).statusCode).toBe(200)
    }
    if (i % 3 === 0) expect((await t.app.inject({ method: 'POST', url: `${V2}/posts/${id}/comments`, headers: readers[0]!.headers, payload: { text: 'Nice' } })).statusCode).toBe(201)
  }
  for (const id of [ids[4]!, ids[1]!]) expect((await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${id}`, headers: author.headers, payload: { text: 'Edited' } })).statusCode).toBe(200)
})

afterAll(async () => {
  await t.close()
})

const likes = (post: Listed) => post.reaction_counts.like ?? 0
/** Compares two posts by a sort's keys as the database does for these values (ASCII titles), then by id in the first key's direction. */
function comparator(sort: string) {
  const keys = sort.split(',').map((part) => ({ column: part.replace(/^-/, ''), sign: part.startsWith('-') ? -1 : 1 }))
  const value = (post: Listed, column: string): string | number => (column === 'reaction_count' ? likes(post) : (post as unknown as Record<string, string | number>)[column]!)
  return (a: Listed, b: Listed) => {
    for (const { column, sign } of keys) {
      const [x, y] = [value(a, column), value(b, column)]
      if (x !== y) return (x < y ? -1 : 1) * sign
    }
    return (a.id - b.id) * keys[0]!.sign
  }
}

describe('sorted post lists', () => {
  it.each(['title', '-title', 'reaction_count', '-reaction_count,title', 'comment_count,-reaction_count', '-updated_at', 'created_at', '-comment_count,title,-created_at'])(
    'sort=%s: pages by cursor give the order of the values, ties by id, each post once',
    async (sort) => {
      const whole = (await get(`/posts?search=${marker}&sort=${sort}&limit=100`)).json<Page>()
      expect(whole.total_count).toBe(11)
      expect(whole.data.map((post) => post.id)).toEqual([...whole.data].sort(comparator(sort)).map((post) => post.id))
      for (const limit of [1, 3, 4]) {
        const { ids, pages } = await walk(sort, limit)
        expect(ids).toEqual(whole.data.map((post) => post.id))
        expect(pages.every((page) => page.total_count === 11)).toBe(true)
      }
      // Unnarrowed, SQLite walks the first key's index in its order (posts.repository.ts): the same posts in the same order, page after page.
      const unnarrowed = await walkAll(`/posts?sort=${sort}&limit=3`)
      expect(unnarrowed).toEqual(whole.data.map((post) => post.id))
      // Numbered pages give the same order.
      const second = (await get(`/posts?search=${marker}&sort=${sort}&limit=4&page=2`)).json<Page>()
      expect(second.data.map((post) => post.id)).toEqual(whole.data.slice(4, 8).map((post) => post.id))
    },
  )

  it('pages by cursor through posts whose timestamps are finer than a millisecond and share one (rows written by hand)', async () => {
    const hand = await seedAndLogin(t.app)
    const stamps = ['2020-01-01 00:00:00.123456+00', '2020-01-01 00:00:00.123789+00', '2020-01-01 00:00:00.123001+00', '2020-01-01 00:00:00.123456+00']
    // SQLite keeps the text as written; PostgreSQL, the instant.
    const stored = (stamp: string) => (dialect() === 'sqlite' ? stamp.replace(' ', 'T').replace('+00', 'Z') : stamp)
    const ids: number[] = []
    for (const [i, stamp] of stamps.entries()) {
      const row = { author_id: hand.user.id, title: `${marker} by hand`, text: 'Old', slug: `by-hand-${i}`, slug_scope: `u:${hand.user.id}`, visibility: 'public', status: 'published', published_at: stored(stamp), created_at: stored(stamp), updated_at: stored(stamp) }
      ids.push((await t.db.insertInto('posts').values(row as never).returning('id').executeTakeFirstOrThrow()).id)
    }
    for (const sort of ['-created_at', 'updated_at']) {
      const whole = (await get(`/posts?author_id=${hand.user.id}&sort=${sort}&limit=100`)).json<Page>().data.map((post) => post.id)
      expect(whole).toHaveLength(4)
      expect(await walkAll(`/posts?author_id=${hand.user.id}&sort=${sort}&limit=1`)).toEqual(whole)
      expect(await walkAll(`/posts?sort=${sort}&limit=1`).then((all) => all.filter((id) => ids.includes(id)))).toEqual(whole)
    }
    await t.db.deleteFrom('posts').where('id', 'in', ids).execute()
  })

  it('pages by title through titles of 100 characters outside the Basic Multilingual Plane', async () => {
    const emoji = await seedAndLogin(t.app)
    const ids: number[] = []
    for (const title of ['😀'.repeat(100), '😁'.repeat(100), '😀'.repeat(99) + 'a']) {
      const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: emoji.headers, payload: { title, text: 'Wide' } })
      expect(response.statusCode, response.body).toBe(201)
      ids.push(response.json<{ id: number }>().id)
    }
    const walked = await walkAll(`/posts?author_id=${emoji.user.id}&sort=title&limit=1`)
    expect([...walked].sort((a, b) => a - b)).toEqual(ids)
    for (const id of ids) await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${id}`, headers: emoji.headers })
  })

  it('lists under the policy as the unsorted list does', async () => {
    const hidden = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: `${marker} private`, text: 'Mine', visibility: 'private' } })
    const privateId = hidden.json<{ id: number }>().id
    const asOther = (await get(`/posts?search=${marker}&sort=-reaction_count&limit=100`, readers[0]!)).json<Page>()
    expect(asOther.data.map((post) => post.id)).not.toContain(privateId)
    expect(asOther.total_count).toBe(11)
    const asAuthor = (await get(`/posts?search=${marker}&sort=-reaction_count&limit=100`)).json<Page>()
    expect(asAuthor.data.map((post) => post.id)).toContain(privateId)
    const anonymous = (await get(`/posts?search=${marker}&sort=title&limit=100`, null)).json<Page>()
    expect(anonymous.data.map((post) => post.id)).not.toContain(privateId)
    await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${privateId}`, headers: author.headers })
  })

  it('refuses a crafted cursor whose values its columns cannot hold (422, never a database error), and follows one that they can', async () => {
    const craft = (values: unknown[]) => `s${Buffer.from(JSON.stringify(values)).toString('base64url')}`
    const refused: [string, string][] = [
      ['-created_at', craft(['-created_at', 'yesterday', 5])],
      ['-created_at', craft(['-created_at', '2026-13-45T99:99:99Z', 5])],
      ['reaction_count', craft(['reaction_count', 2 ** 40, 5])],
      ['reaction_count', craft(['reaction_count', -1, 5])],
      ['reaction_count', craft(['reaction_count', 1.5, 5])],
      ['title', craft(['title', 'a\u0000b', 5])],
      ['title', craft(['title', 'x'.repeat(101), 5])],
      ['title', craft(['title', 'a', 2 ** 31])],
      ['title', craft(['title', 'a', '5'])],
      ['title', craft(['title', 'a'])],
      ['title', 'snot-base64!'],
    ]
    for (const [sort, cursor] of refused) {
      const response = await get(`/posts?sort=${sort}&cursor=${encodeURIComponent(cursor)}`)
      expect(response.statusCode, `${sort} ${cursor}`).toBe(422)
      expect(response.json().detail).toMatch(/cursor/i)
    }
    const fromTheFuture = await get(`/posts?search=${marker}&sort=-created_at&limit=100&cursor=${craft(['-created_at', '2999-01-01T00:00:00.000Z', 1])}`)
    expect(fromTheFuture.json<Page>().data).toHaveLength(11)
  })

  it('refuses an unknown column, a column twice, four keys, and a cursor of another sort (422)', async () => {
    for (const sort of ['author_id', 'title,-title', 'title,created_at,updated_at,comment_count', '--title', 'title,']) {
      const response = await get(`/posts?sort=${sort}`)
      expect(response.statusCode, sort).toBe(422)
      expect(response.json().detail).toMatch(/sort/)
    }
    const cursor = (await get(`/posts?search=${marker}&sort=title&limit=2`)).json<Page>().next_cursor
    expect(cursor).not.toBeNull()
    for (const url of [`/posts?search=${marker}&sort=-title&cursor=${cursor}`, `/posts?search=${marker}&cursor=${cursor}`, `/posts?search=${marker}&sort=title&cursor=${cursor}x`]) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(422)
      expect(response.json().detail).toMatch(/cursor/i)
    }
    const unsorted = (await get(`/posts?search=${marker}&limit=2`)).json<Page>().next_cursor
    expect((await get(`/posts?search=${marker}&sort=title&cursor=${unsorted}`)).statusCode).toBe(422)
  })
})

// Last: it writes more posts than a sort not read from an index may choose from.
describe('a sort not read from an index, of a large list', () => {
  it(`is refused past ${UNINDEXED_SORT_MAX_POSTS.toLocaleString('en')} posts (422 sort_too_broad): several keys, and a count on PostgreSQL; one indexed key, or a narrowed list, still sorts`, async () => {
    const bulk = await seedAndLogin(t.app)
    const now = new Date().toISOString()
    await sql`with recursive series(g) as (select 1 union all select g + 1 from series where g <= ${UNINDEXED_SORT_MAX_POSTS})
      insert into posts (author_id, title, text, slug, slug_scope, visibility, status, published_at, created_at, updated_at)
      select ${bulk.user.id}, 'Bulk', 'Body', 'bulk-' || g, 'bulk', 'public', 'published', ${now}, ${now}, ${now} from series`.execute(t.db)
    const refused = await get('/posts?sort=-updated_at,title')
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json()).toMatchObject({ code: 'sort_too_broad' })
    expect(refused.json().detail).toMatch(/narrow/)
    // The kept counts are indexed on SQLite only (migration 2026-12-11-02-post-sort-indexes).
    const byCount = await get('/posts?sort=-reaction_count&limit=5')
    expect(byCount.statusCode, byCount.body).toBe(dialect() === 'sqlite' ? 200 : 422)
    const oneKey = await get('/posts?sort=title&limit=5')
    expect(oneKey.statusCode, oneKey.body).toBe(200)
    expect(oneKey.json<Page>().data).toHaveLength(5)
    const narrowed = await get(`/posts?author_id=${author.user.id}&sort=-reaction_count,title&limit=100`)
    expect(narrowed.statusCode, narrowed.body).toBe(200)
    expect(narrowed.json<Page>().total_count).toBe(11)
  })
})
