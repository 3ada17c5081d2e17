// GET /api/v2/search?type=comments through HTTP on both databases (docs/api.md "Search"): ranked
// hits with their best passages as safe HTML; the post policy and what a reader sees of a thread
// inside the query (a comment on a private post is its readers' hit only, a hidden one its
// author's, a blocked author's nobody's who blocked them), with totals that count only those; the
// posts' narrowing (tag, visibility, status); cursor pages in rank order; the index kept by every
// write (an edit, a delete, an account removed for good); and the migration that indexes the
// comments written before it. Who finds which comment in every visibility and status is the
// comment matrix's (comment-access.v2.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { migrateTo, migrateToLatest } from '../../db/migrate.js'

interface CommentHit {
  type: 'comment'
  rank: number
  highlights: { text: string }
  comment: { id: number; post_id: number; text: string | null; status: string; author_id: number | null }
}
interface HitPage {
  data: CommentHit[]
  total_count: number
  has_more: boolean
  next_cursor: string | null
}

let t: TestApp
let author: LoggedIn
let reader: LoggedIn
let talker: LoggedIn
/** A word only this file's comments have: every query carries it. */
const marker = `csrch${Date.now()}`
const posts: Record<string, number> = {}
const comments: Record<string, number> = {}

const send = (who: LoggedIn, method: string, url: string, payload?: object) => t.app.inject({ method: method as 'POST', url: `${V2}${url}`, headers: who.headers, ...(payload ? { payload } : {}) })
const search = (query: string, who: LoggedIn | null = null, extra = '') => t.app.inject({ url: `${V2}/search?type=comments&q=${encodeURIComponent(query)}${extra}`, headers: who?.headers ?? {} })

/** What a query finds, best first, and the total. */
async function found(query: string, who: LoggedIn | null = null, extra = ''): Promise<{ ids: number[]; total: number }> {
  const response = await search(`${marker} ${query}`, who, `&limit=50${extra}`)
  expect(response.statusCode, response.body).toBe(200)
  const page = response.json<HitPage>()
  return { ids: page.data.map((hit) => hit.comment.id), total: page.total_count }
}

async function writePost(name: string, payload: Record<string, unknown>): Promise<void> {
  const response = await send(author, 'POST', '/posts', { text: 'A post to talk about.', ...payload })
  expect(response.statusCode, response.body).toBe(201)
  posts[name] = response.json<{ id: number }>().id
}

async function say(name: string, who: LoggedIn, post: string, text: string, parent?: string): Promise<void> {
  const response = await send(who, 'POST', `/posts/${posts[post]}/comments`, { text: `${text} ${marker}`, ...(parent ? { parent_id: comments[parent] } : {}) })
  expect(response.statusCode, response.body).toBe(201)
  comments[name] = response.json<{ id: number }>().id
}

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  reader = await seedAndLogin(t.app)
  talker = await seedAndLogin(t.app)
  await writePost('open', { title: 'Gardening', language: 'en', tags: ['garden'] })
  await writePost('other', { title: 'Cooking', language: 'en' })
  await writePost('private', { title: 'Diary', language: 'en', visibility: 'private' })
  await writePost('german', { title: 'Küche', language: 'de' })
  await say('title', talker, 'open', 'Tomatoes need sun; tomatoes need water; tomatoes everywhere.')
  await say('reply', reader, 'open', 'I grow tomatoes too, <b>bold</b> & "quoted".', 'title')
  await say('cooking', talker, 'other', 'Tomato soup is the best use of ripe tomatoes.')
  await say('private', author, 'private', 'Secret tomatoes in my diary.')
  await say('german', talker, 'german', 'Unsere Häuser haben große Küchen.')
  await say('hidden', talker, 'open', 'Rude words about tomatoes and spam.')
  expect((await send(author, 'POST', `/comments/${comments.hidden}/hide`, { reason: 'Spam' })).statusCode).toBe(200)
})

afterAll(async () => {
  await t.close()
})

describe('comments in ranked search', () => {
  it('ranks a comment that says it more above one that says it less, and answers each with the comment and its passage marked, escaped', async () => {
    const response = await search(`${marker} tomatoes`, null, '&limit=50')
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json<HitPage>()
    const order = page.data.map((hit) => hit.comment.id)
    expect([...order].sort()).toEqual([comments.title, comments.cooking, comments.reply].sort())
    // Three times in one comment ranks above once in another; ranks never rise down the page.
    expect(order.indexOf(comments.title!)).toBeLessThan(order.indexOf(comments.reply!))
    expect(page.data.map((hit) => hit.rank)).toEqual(page.data.map((hit) => hit.rank).sort((a, b) => b - a))
    expect(page.total_count).toBe(3)
    const reply = page.data.find((hit) => hit.comment.id === comments.reply)!
    expect(reply.type).toBe('comment')
    expect(reply.comment.post_id).toBe(posts.open)
    expect(reply.highlights.text).toContain('<mark>tomatoes</mark>')
    expect(reply.highlights.text).toContain('&amp; &quot;quoted&quot;')
    // PostgreSQL's passages leave out what its parser reads as markup; SQLite's keep it, escaped.
    if (dialect() === 'sqlite') expect(reply.highlights.text).toContain('&lt;b&gt;bold&lt;/b&gt;')
    expect(reply.highlights.text).not.toContain('<b>')
    // Stemmed: "tomato" finds "tomatoes"; the last word is a prefix while it is typed.
    expect((await found('tomato ')).ids.sort()).toEqual([comments.title, comments.cooking, comments.reply].sort())
    expect((await found('tomatoe')).total).toBe(3)
    expect((await found('soup -ripe')).ids).toEqual([])
    expect((await found('"tomato soup"')).ids).toEqual([comments.cooking])
  })

  it('holds to the post policy inside the query: a comment on a private post is found by those who may read it, and counted only for them', async () => {
    expect((await found('secret')).ids).toEqual([])
    expect((await found('secret', reader)).total).toBe(0)
    expect((await found('secret', author)).ids).toEqual([comments.private])
    expect((await found('tomatoes', author)).total).toBe(4)
    expect((await found('tomatoes', reader)).total).toBe(3)
  })

  it("finds a hidden comment for its author only, whole; a blocked author's comments for nobody who blocked them", async () => {
    const own = await search(`${marker} rude`, talker)
    expect(own.json<HitPage>().data.map((hit) => [hit.comment.id, hit.comment.status, hit.comment.text !== null])).toEqual([[comments.hidden, 'hidden', true]])
    expect((await found('rude')).ids).toEqual([])
    // The post's author moderates it: the hidden comment is in the thread for them, not in search.
    expect((await found('rude', author)).ids).toEqual([])
    expect((await send(reader, 'POST', '/users/me/blocks', { user_id: talker.user.id })).statusCode).toBe(201)
    try {
      expect(await found('tomatoes', reader)).toEqual({ ids: [comments.reply], total: 1 })
    } finally {
      expect((await send(reader, 'DELETE', `/users/me/blocks/${talker.user.id}`)).statusCode).toBe(200)
    }
  })

  it("narrows by the posts' tag, visibility and status as a list of posts does", async () => {
    expect((await found('tomatoes', null, '&tag=garden')).ids.sort()).toEqual([comments.title, comments.reply].sort())
    expect((await found('tomatoes', author, '&visibility=private')).ids).toEqual([comments.private])
    expect((await found('tomatoes', null, '&status=draft')).total).toBe(0)
  })

  it('pages by cursor in rank order, the same hits as one page', async () => {
    const whole = (await found('tomatoes', author)).ids
    const walked: number[] = []
    let cursor: string | null = null
    do {
      const response = await search(`${marker} tomatoes`, author, `&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`)
      const page: HitPage = response.json<HitPage>()
      walked.push(...page.data.map((hit) => hit.comment.id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(walked).toEqual(whole)
    expect((await search(`${marker} tomatoes`, author, '&limit=1&page=2')).json<HitPage>().data.map((hit) => hit.comment.id)).toEqual(whole.slice(1, 2))
  })

  it('keeps the index with every write: an edit is found by its new words only, a deleted comment by none', async () => {
    await say('edited', talker, 'other', 'Potatoes are starchy.')
    expect((await found('potatoes')).ids).toEqual([comments.edited])
    expect((await send(talker, 'PATCH', `/comments/${comments.edited}`, { text: `Carrots are crunchy. ${marker}` })).statusCode).toBe(200)
    expect((await found('potatoes')).ids).toEqual([])
    expect((await found('carrots')).ids).toEqual([comments.edited])
    expect((await send(talker, 'DELETE', `/comments/${comments.edited}`)).statusCode).toBe(200)
    expect((await found('carrots')).ids).toEqual([])
    const column = dialect() === 'sqlite' ? 'rowid' : 'comment_id'
    const left = await t.db.selectFrom('comment_search').select(t.db.fn.countAll().as('count')).where(column as 'comment_id', '=', comments.edited).executeTakeFirstOrThrow()
    expect(Number(left.count)).toBe(0)
  })

  it("takes every comment of an account removed for good out of the index, and out of every search", async () => {
    const leaver = await seedAndLogin(t.app)
    const mine: number[] = []
    for (const text of ['Goodbye gardeners', 'Goodbye cooks', 'Goodbye again']) {
      const said = await send(leaver, 'POST', `/posts/${posts.open}/comments`, { text: `${text} ${marker}` })
      expect(said.statusCode, said.body).toBe(201)
      mine.push(said.json<{ id: number }>().id)
    }
    expect((await found('goodbye')).total).toBe(3)
    expect((await send(leaver, 'DELETE', '/users/me')).statusCode).toBe(202)
    await t.app.services.accountDeletion.purgeDue(Date.now() + 30 * 86_400_000)
    expect(await t.db.selectFrom('users').select('id').where('id', '=', leaver.user.id).executeTakeFirst()).toBeUndefined()
    expect((await found('goodbye')).total).toBe(0)
    const column = dialect() === 'sqlite' ? 'rowid' : 'comment_id'
    const left = await t.db.selectFrom('comment_search').select(t.db.fn.countAll().as('count')).where(column as 'comment_id', 'in', mine).executeTakeFirstOrThrow()
    expect(Number(left.count)).toBe(0)
  })

  it("reads a comment in its post's language: German stems on PostgreSQL, and folds its accents on SQLite", async () => {
    expect((await found('häuser')).ids).toEqual([comments.german])
    if (dialect() === 'sqlite') expect((await found('kuchen')).ids).toEqual([comments.german])
    else expect((await found('Haus')).ids).toEqual([comments.german])
  })

  it('refuses a query with nothing to find: 422 search_query_empty', async () => {
    const response = await search('-tomatoes')
    expect(response.statusCode).toBe(422)
    expect(response.json<{ code: string }>().code).toBe('search_query_empty')
  })
})

// Last: it takes the index away and makes it again for every comment of the database.
describe('the migration', () => {
  it("indexes the comments written before it, each in its post's language, and none erased", async () => {
    const down = await migrateTo(t.db, '2026-12-15-02-post-schedule')
    expect(down.error).toBeUndefined()
    expect(down.results?.map((result) => result.migrationName)).toEqual(['2026-12-16-01-comment-search'])
    const now = new Date().toISOString()
    const old = await t.db.insertInto('comments').values({ post_id: posts.german!, author_id: talker.user.id, parent_id: null, text: `Alte Gärten ${marker}`, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()
    await migrateToLatest(t.db)
    expect((await found('alte')).ids).toEqual([old.id])
    expect((await found('tomatoes')).total).toBe(3)
    expect((await found('carrots')).ids).toEqual([])
    if (dialect() !== 'sqlite') expect((await found('Garten')).ids).toEqual([old.id])
  })
})
