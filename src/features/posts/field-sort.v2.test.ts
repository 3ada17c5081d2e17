// `sort` on declared custom fields through HTTP on both databases (docs/api.md "Sort"): each kind
// of field in both directions and beside columns, walked page by page with cursors, gives the order
// the values say, posts without the field last (ascending) and ties by id; a private field orders
// only the posts whose private fields the caller reads, so the order tells nothing of the others;
// fields one may not read, lists and undeclared names are 422; crafted cursors are 422, never a
// failed query; and a field sort of more than 10,000 posts is sort_too_broad.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { MAX_ID } from '../../shared/record-id.js'
import { UNINDEXED_SORT_MAX_POSTS } from './post-sort.js'

const SCHEMA = {
  posts: {
    properties: {
      rating: { type: 'integer', visibility: 'public' },
      score: { type: 'number', visibility: 'public' },
      kind: { enum: ['howto', 'news', 'review'], visibility: 'public' },
      due: { type: 'string', format: 'date-time', visibility: 'public' },
      featured: { type: 'boolean', visibility: 'public' },
      name: { type: 'string', visibility: 'public' },
      tags: { type: 'array', items: { type: 'string' }, visibility: 'public' },
      note: { type: 'string', visibility: 'private' },
      crm: { type: 'string', visibility: 'server' },
    },
  },
}

interface Listed {
  id: number
  title: string
  author_id: number
  fields: Record<string, unknown>
}
interface Page {
  data: Listed[]
  total_count: number
  has_more: boolean
  next_cursor: string | null
}

let t: TestApp
let author: LoggedIn
let other: LoggedIn
let superuser: LoggedIn
const marker = `fsort${Date.now()}`
/** Every seeded post with all its fields, as its author reads them. */
const seeded: Listed[] = []

const get = (url: string, who: LoggedIn | null) => t.app.inject({ url: `${V2}${url}`, headers: who?.headers ?? {} })

/** Every post of the marker's list in `sort`'s order, page after page by cursor. */
async function walk(sort: string, who: LoggedIn | null, limit = 2): Promise<number[]> {
  const ids: number[] = []
  let cursor: string | null = null
  do {
    const response = await get(`/posts?search=${marker}&sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, who)
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json<Page>()
    expect(page.total_count).toBe(seeded.length)
    ids.push(...page.data.map((post) => post.id))
    cursor = page.next_cursor
  } while (cursor !== null)
  return ids
}

type Value = string | number | boolean | undefined
/** A field's value as it orders: numbers and texts as themselves, false before true, a time by its instant. */
const orderable = (value: Value) => (typeof value === 'boolean' ? Number(value) : typeof value === 'string' && /^\d{4}-/.test(value) ? Date.parse(value) : value)

/** The order `sort` should give, worked out here: a missing value after every value ascending, ties by id in the first key's direction. */
function expectedOrder(sort: string, valueOf: (post: Listed, field: string) => Value = (post, field) => post.fields[field] as Value): number[] {
  const keys = sort.split(',').map((part) => ({ name: part.replace(/^-/, ''), descending: part.startsWith('-') }))
  const compare = (a: Listed, b: Listed) => {
    for (const key of keys) {
      const [x, y] = [a, b].map((post) => (key.name.startsWith('fields.') ? orderable(valueOf(post, key.name.slice(7))) : (post[key.name as 'title'] as Value)))
      if (x === y) continue
      const ascending = x === undefined ? 1 : y === undefined ? -1 : x! < y! ? -1 : 1
      return key.descending ? -ascending : ascending
    }
    return keys[0]!.descending ? b.id - a.id : a.id - b.id
  }
  return [...seeded].sort(compare).map((post) => post.id)
}

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  const posts: [string, LoggedIn, Record<string, unknown>][] = [
    ['a', author, { rating: 5, score: 1.5, kind: 'news', due: '2027-01-01T00:00:00Z', featured: true, name: 'delta', note: 'n3', tags: ['go'] }],
    ['b', author, { rating: 3, score: -2, kind: 'howto', due: '2026-06-01T12:00:00.000+02:00', featured: false, name: 'alpha', note: 'n1' }],
    ['c', author, { rating: 3, kind: 'review', featured: true, name: 'charlie' }],
    ['d', author, { rating: -7, score: 100.25, due: '2026-06-01T09:59:59.999Z', name: 'bravo', note: 'n2' }],
    ['e', author, {}],
    ['f', author, { rating: 3, score: 1.5, kind: 'news', featured: false }],
    ['g', other, { rating: 10, score: 0, kind: 'howto', due: '2025-12-31T23:00:00-02:00', name: 'echo', note: 'm2' }],
    ['h', other, { rating: 5, note: 'm1', featured: true }],
    ['i', other, { score: 0, name: 'alpha', note: 'm3' }],
  ]
  for (const [name, who, fields] of posts) {
    const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: who.headers, payload: { title: `${marker} ${name}`, text: `Text of ${name}`, fields } })
    expect(response.statusCode, response.body).toBe(201)
    seeded.push({ ...response.json<Listed>(), fields })
  }
  const crm = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${seeded[2]!.id}`, headers: superuser.headers, payload: { fields: { crm: 'x-2' } } })
  expect(crm.statusCode, crm.body).toBe(200)
  seeded[2]!.fields.crm = 'x-2'
  await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${seeded[5]!.id}`, headers: superuser.headers, payload: { fields: { crm: 'x-1' } } })
  seeded[5]!.fields.crm = 'x-1'
})

afterAll(async () => {
  await t.close()
})

describe('sort on custom fields', () => {
  it.each(['fields.rating', '-fields.rating', 'fields.score,-fields.rating', '-fields.kind,fields.rating', 'fields.due', '-fields.due', '-fields.featured,fields.name', 'fields.name,-fields.score', 'title,fields.rating', '-fields.score,fields.kind,-fields.name'])(
    '%s: every page by cursor, in the order the values say, posts without the field last ascending',
    async (sort) => {
      const expected = expectedOrder(sort)
      expect(await walk(sort, null)).toEqual(expected)
      expect(await walk(sort, author, 3)).toEqual(expected)
      const onePage = await get(`/posts?search=${marker}&sort=${sort}&limit=100`, other)
      expect(onePage.json<Page>().data.map((post) => post.id)).toEqual(expected)
    },
  )

  it('numbered pages follow the same order', async () => {
    const expected = expectedOrder('-fields.score')
    const pages = await Promise.all([1, 2, 3].map(async (page) => (await get(`/posts?search=${marker}&sort=-fields.score&limit=4&page=${page}`, author)).json<Page>().data.map((post) => post.id)))
    expect(pages.flat()).toEqual(expected)
  })

  it('a private field orders only the posts whose private fields the caller reads: the others sort as if they had none, so their order is by id', async () => {
    const readBy = (who: LoggedIn) => (post: Listed, field: string) => (field === 'note' && post.author_id !== who.user.id ? undefined : (post.fields[field] as Value))
    for (const who of [author, other]) {
      for (const sort of ['fields.note', '-fields.note,fields.rating']) {
        expect(await walk(sort, who), `${sort} for ${who.user.id}`).toEqual(expectedOrder(sort, readBy(who)))
      }
    }
    expect(await walk('fields.note', superuser)).toEqual(expectedOrder('fields.note'))
  })

  it('a server field sorts for superusers only', async () => {
    expect(await walk('-fields.crm', superuser)).toEqual(expectedOrder('-fields.crm'))
    const refused = await get(`/posts?search=${marker}&sort=-fields.crm`, author)
    expect(refused.statusCode).toBe(422)
    expect(refused.json().detail).toMatch(/server field/)
  })

  it.each([
    ['fields.note', null, /private field.*sign in/],
    ['fields.tags', 'author', /list of texts/],
    ['fields.nothing', 'author', /no such field/],
    ['fields.rating,-fields.rating', 'author', /twice/],
    ['fields.Rating', 'author', /sort/],
    ['fields.', 'author', /sort/],
    ['fields.rating,title,-fields.score,created_at', 'author', /sort/],
  ])('%s is 422 (%s)', async (sort, who, detail) => {
    const response = await get(`/posts?search=${marker}&sort=${sort}`, who === 'author' ? author : null)
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json()).toMatchObject({ code: 'validation_failed' })
    expect(JSON.stringify(response.json())).toMatch(detail)
  })

  it("a cursor carries the field's value as stored; a crafted value it could not hold is 422, one it could continues from there", async () => {
    const cursorOf = (sort: string, value: unknown, id: number) => `s${Buffer.from(JSON.stringify([sort, value, id])).toString('base64url')}`
    const at = (sort: string, value: unknown, id = 1) => get(`/posts?search=${marker}&sort=${sort}&limit=100&cursor=${cursorOf(sort, value, id)}`, author)
    for (const value of [{ a: 1 }, [{ a: 1 }], 'x\u0000', '\ud800']) {
      const response = await at('fields.name', value)
      expect(response.statusCode, `${JSON.stringify(value)}: ${response.body}`).toBe(422)
    }
    // After rating 3 with the largest id: the posts rated above 3, then those without a rating.
    const after3 = await at('fields.rating', 3, MAX_ID)
    expect(after3.statusCode, after3.body).toBe(200)
    const order = expectedOrder('fields.rating')
    expect(after3.json<Page>().data.map((post) => post.id)).toEqual(order.filter((id) => (seeded.find((post) => post.id === id)!.fields.rating as number | undefined ?? Infinity) > 3))
    // After a post without the field: only such posts with a larger id.
    const afterNone = await at('fields.rating', null, 1)
    expect(afterNone.json<Page>().data.map((post) => post.id)).toEqual(order.filter((id) => seeded.find((post) => post.id === id)!.fields.rating === undefined))
    for (const value of [true, ['a', 'b'], 'text', 2.5]) expect((await at('fields.rating', value)).statusCode).toBe(200)
  })
})

// Last: it writes more posts than a sort not read from an index may choose from.
describe('a field sort of a large list', () => {
  it(`is refused past ${UNINDEXED_SORT_MAX_POSTS.toLocaleString('en')} posts (422 sort_too_broad); a narrowed list still sorts`, async () => {
    const bulk = await seedAndLogin(t.app)
    const now = new Date().toISOString()
    await sql`with recursive series(g) as (select 1 union all select g + 1 from series where g <= ${UNINDEXED_SORT_MAX_POSTS})
      insert into posts (author_id, title, text, slug, slug_scope, visibility, status, published_at, created_at, updated_at)
      select ${bulk.user.id}, 'Bulk', 'Body', 'bulk-' || g, 'bulk', 'public', 'published', ${now}, ${now}, ${now} from series`.execute(t.db)
    const refused = await get('/posts?sort=-fields.rating', author)
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json()).toMatchObject({ code: 'sort_too_broad' })
    const narrowed = await get(`/posts?author_id=${other.user.id}&sort=-fields.rating`, author)
    expect(narrowed.statusCode, narrowed.body).toBe(200)
    // Descending, a post without the field comes first: it sorts after every value ascending.
    expect(narrowed.json<Page>().data.map((post) => post.title.slice(-1))).toEqual(['i', 'g', 'h'])
  })
})
