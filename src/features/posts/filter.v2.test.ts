// `filter` on version 2's post lists through HTTP on both databases (docs/api.md "Filter"): each
// operator on columns and on each kind of declared field, && and || with parentheses, combined
// with sort and cursor pages, always inside what the caller may list; private and server fields
// refused or blind to whoever may not read them; bad filters 400 invalid_filter saying where.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { FILTER_MAX_TERMS, UNINDEXED_FILTER_MAX_ROWS as UNINDEXED_FILTER_MAX_POSTS } from '../content-fields/index.js'

const SCHEMA = {
  posts: {
    properties: {
      rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public' },
      score: { type: 'number', visibility: 'public' },
      kind: { enum: ['news', 'howto'], visibility: 'public' },
      tags: { type: 'array', items: { type: 'string' }, visibility: 'public' },
      due: { type: 'string', format: 'date-time', visibility: 'public' },
      featured: { type: 'boolean', visibility: 'public' },
      note: { type: 'string', visibility: 'private' },
      crm_id: { type: 'string', visibility: 'server' },
    },
  },
}

interface Seeded {
  id: number
  title: string
  fields: Record<string, unknown>
}

let t: TestApp
let author: LoggedIn
let other: LoggedIn
let superuser: LoggedIn
const seeded: Seeded[] = []
const marker = `flt${Date.now()}`

const list = (who: LoggedIn | null, query: string, limit = 100) => t.app.inject({ url: `${V2}/posts?limit=${limit}&search=${marker}&${query}`, headers: who?.headers ?? {} })

async function ids(who: LoggedIn | null, filter: string, extra = ''): Promise<string[]> {
  const response = await list(who, `filter=${encodeURIComponent(filter)}${extra}`)
  expect(response.statusCode, `${filter}: ${response.body}`).toBe(200)
  return response.json<{ data: Seeded[] }>().data.map((post) => post.title.replace(`${marker} `, '')).sort()
}

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  const posts: [string, LoggedIn, object, object][] = [
    ['a', author, { rating: 5, score: 1.5, kind: 'news', tags: ['go', 'sql'], due: '2027-01-01T00:00:00Z', featured: true, note: 'secret plan' }, {}],
    ['b', author, { rating: 3, kind: 'howto', tags: ['go'], featured: false, note: 'other' }, {}],
    ['c', author, { rating: 1, score: -2, tags: [] }, { visibility: 'private' }],
    ['d', other, { rating: 4, kind: 'news', note: 'secret plan', due: '2026-06-01T12:00:00.000Z' }, {}],
    ['e', other, {}, { status: 'draft' }],
  ]
  for (const [name, who, fields, extra] of posts) {
    const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: who.headers, payload: { title: `${marker} ${name}`, text: `Text of ${name}`, fields, ...extra } })
    expect(response.statusCode, response.body).toBe(201)
    seeded.push(response.json<Seeded>())
  }
  await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${seeded[0]!.id}`, headers: superuser.headers, payload: { fields: { crm_id: 'c-1' } } })
})

afterAll(async () => {
  await t.close()
})

describe('filter on post lists', () => {
  it.each([
    ['fields.rating >= 4', ['a', 'd']],
    ['fields.rating < 4', ['b']],
    ['fields.rating != 3', ['a', 'd']],
    ['fields.score != 1.5', []],
    ['fields.score > 0', ['a']],
    ['fields.kind = "news"', ['a', 'd']],
    ["fields.kind != 'news'", ['b']],
    ['fields.tags ~ "go"', ['a', 'b']],
    // d has no tags: every comparison with a field a post lacks is false, a negated one too.
    ['fields.tags !~ "sql"', ['b']],
    ['fields.rating != 1', ['a', 'b', 'd']],
    ['fields.featured = true', ['a']],
    ['fields.featured = false', ['b']],
    ['fields.kind = null', []],
    ['fields.kind != null', ['a', 'b', 'd']],
    ['fields.due < "2026-12-31T00:00:00Z"', ['d']],
    ['fields.due >= "2026-06-01T12:00:00Z"', ['a', 'd']],
    // Written as 2027-01-01T00:00:00Z and stored as one instant: any spelling of it is equal.
    ['fields.due = "2027-01-01T01:00:00+01:00"', ['a']],
    ['fields.due = "2027-01-01"', ['a']],
    ['title ~ "A"', ['a']],
    ['text !~ "of b"', ['a', 'd']],
    ['fields.rating >= 4 && fields.tags ~ "go" || fields.kind = "howto"', ['a', 'b']],
    ['fields.rating >= 4 && (fields.tags ~ "go" || fields.kind = "howto")', ['a']],
    ['(fields.rating = 1 || fields.rating = 3) && status = "published"', ['b']],
  ])('%s, anonymously: %j', async (filter, expected) => {
    expect(await ids(null, filter)).toEqual(expected)
  })

  it('lists within what the caller may list: the author also finds their private post, nobody else its draft', async () => {
    expect(await ids(author, 'fields.rating <= 3')).toEqual(['b', 'c'])
    expect(await ids(other, `author_id = ${other.user.id}`)).toEqual(['d', 'e'])
    expect(await ids(author, `author_id = ${other.user.id}`)).toEqual(['d'])
    expect(await ids(superuser, 'fields.rating = 1 || status = "draft"')).toEqual(['c', 'e'])
  })

  it('compares a private field only on the posts whose private fields the caller reads, and refuses it anonymously', async () => {
    // Both a (the author's) and d (the other's) hold "secret plan": each finds only their own.
    expect(await ids(author, 'fields.note = "secret plan"')).toEqual(['a'])
    expect(await ids(other, 'fields.note = "secret plan"')).toEqual(['d'])
    expect(await ids(other, 'fields.note != "x"')).toEqual(['d'])
    expect(await ids(superuser, 'fields.note ~ "SECRET"')).toEqual(['a', 'd'])
    const anonymous = await list(null, `filter=${encodeURIComponent('fields.note = "secret plan"')}`)
    expect(anonymous.statusCode).toBe(400)
    expect(anonymous.json()).toMatchObject({ code: 'invalid_filter', detail: expect.stringContaining('private field') })
  })

  it('refuses a server field to all but superusers', async () => {
    const refused = await list(author, `filter=${encodeURIComponent('fields.crm_id = "c-1"')}`)
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({ code: 'invalid_filter', detail: expect.stringContaining('server field') })
    expect(await ids(superuser, 'fields.crm_id = "c-1"')).toEqual(['a'])
  })

  it('holds with sort and across cursor pages, and counts what it lists', async () => {
    const filter = encodeURIComponent('fields.rating >= 1')
    const all = await list(author, `filter=${filter}&sort=-title`)
    expect(all.json<{ data: Seeded[]; total_count: number }>()).toMatchObject({ total_count: 4 })
    expect(all.json<{ data: Seeded[] }>().data.map((post) => post.id)).toEqual([seeded[3]!.id, seeded[2]!.id, seeded[1]!.id, seeded[0]!.id])
    const walked: number[] = []
    let cursor: string | null = null
    do {
      const page: { data: Seeded[]; next_cursor: string | null; total_count: number } = (await list(author, `filter=${filter}${cursor ? `&cursor=${cursor}` : ''}`, 1)).json<{ data: Seeded[]; next_cursor: string | null; total_count: number }>()
      expect(page.total_count).toBe(4)
      walked.push(...page.data.map((post) => post.id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(walked).toEqual([seeded[3]!.id, seeded[2]!.id, seeded[1]!.id, seeded[0]!.id])
    // The caller's own list and an organization's take it too.
    const own = await t.app.inject({ url: `${V2}/users/me/posts?filter=${encodeURIComponent('fields.kind = "howto"')}`, headers: author.headers })
    expect(own.json<{ data: Seeded[] }>().data.map((post) => post.id)).toEqual([seeded[1]!.id])
  })

  it.each([
    ['rating >= 4', 'no such column'],
    ['fields.colour = "red"', 'no such field'],
    ['fields.rating = "five"', 'expected an integer'],
    ['fields.rating ~ "5"', '~ does not apply'],
    ['fields.kind = "opinion"', 'expected one of "news", "howto"'],
    ['fields.due > "tomorrow"', 'expected a date-time'],
    ['visibility = "secret"', 'expected one of'],
    ['title = null', 'only = null and != null'],
    ['fields.rating >= 4 &&', 'not valid at character 22'],
    ['fields.rating == 4', 'not valid at character 16'],
    ['fields.rating >= 4; drop table posts', 'not valid at character 19'],
    ['(((((fields.rating = 1 || fields.rating = 2) && fields.rating = 3) || fields.rating = 4) && fields.rating = 5) || fields.rating = 1)', 'more than 4 deep'],
    [Array.from({ length: FILTER_MAX_TERMS + 1 }, () => 'fields.rating = 1').join(' || '), `more than ${FILTER_MAX_TERMS} comparisons`],
  ])('refuses %s with 400 invalid_filter: %s', async (filter, reason) => {
    const response = await list(author, `filter=${encodeURIComponent(filter)}`)
    expect(response.statusCode, response.body).toBe(400)
    expect(response.json()).toMatchObject({ code: 'invalid_filter', detail: expect.stringContaining(reason) })
  })

  it('refuses a filter longer than 500 characters by its schema (422)', async () => {
    const response = await list(author, `filter=${'a'.repeat(501)}`)
    expect(response.statusCode).toBe(422)
  })
})

// Last: it fills the database past the bound.
describe('a filter no index narrows, on a large list', () => {
  beforeAll(async () => {
    const now = new Date().toISOString()
    for (let batch = 0; batch < 11; batch++) {
      const rows = Array.from({ length: 1_000 }, (_, i) => {
        const n = batch * 1_000 + i
        return { author_id: other.user.id, title: `Bulk ${n}`, text: 'Bulk', slug: `bulk-${n}`, slug_scope: `u:${other.user.id}`, visibility: 'public', status: 'published', published_at: now, created_at: now, updated_at: now }
      })
      await t.db.insertInto('posts').values(rows).execute()
    }
  })

  it(`is refused over more than ${UNINDEXED_FILTER_MAX_POSTS.toLocaleString('en')} posts (422 filter_too_broad), and taken once an index narrows it`, async () => {
    const broad = await t.app.inject({ url: `${V2}/posts?filter=${encodeURIComponent('fields.rating = 5')}` })
    expect(broad.statusCode, broad.body).toBe(422)
    expect(broad.json()).toMatchObject({ code: 'filter_too_broad', detail: expect.stringContaining('author_id') })
    const sorted = await t.app.inject({ url: `${V2}/posts?sort=title&filter=${encodeURIComponent('title ~ "a"')}`, headers: author.headers })
    expect(sorted.json()).toMatchObject({ code: 'filter_too_broad' })
    // Narrowed by an index: in the filter, by the author's list, or by the caller's own.
    const inFilter = await t.app.inject({ url: `${V2}/posts?filter=${encodeURIComponent(`fields.rating = 5 && author_id = ${author.user.id}`)}` })
    expect(inFilter.json<{ data: Seeded[] }>().data.map((post) => post.id)).toEqual([seeded[0]!.id])
    const byAuthor = await t.app.inject({ url: `${V2}/posts?author_id=${author.user.id}&filter=${encodeURIComponent('fields.rating = 5')}` })
    expect(byAuthor.json<{ data: Seeded[] }>().data.map((post) => post.id)).toEqual([seeded[0]!.id])
    const own = await t.app.inject({ url: `${V2}/users/me/posts?filter=${encodeURIComponent('fields.rating = 5')}`, headers: author.headers })
    expect(own.json<{ data: Seeded[] }>().data.map((post) => post.id)).toEqual([seeded[0]!.id])
    const either = await t.app.inject({ url: `${V2}/posts?sort=title&filter=${encodeURIComponent(`author_id = ${author.user.id} || author_id = ${other.user.id}`)}&limit=1` })
    expect(either.statusCode, either.body).toBe(200)
  })
})
