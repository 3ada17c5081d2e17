// GET /api/v2/search through HTTP on both databases (docs/api.md "Search"): ranked hits with
// highlights that are safe HTML; the web's query syntax (phrases, -word, or, a last word being
// typed); German, French, Spanish, Cyrillic, Greek and Chinese text; the index kept by every edit
// and language change; the policy inside the query (a private post is no one's hit but its
// author's, and the total counts only what the caller may list); cursor pages in rank order;
// users by name; and refusals with their codes. Who finds which post in every visibility and
// status is the access matrix's (post-access.v2.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { migrateTo, migrateToLatest } from '../../db/migrate.js'

interface Hit {
  type: 'post'
  rank: number
  highlights: { title: string; text: string }
  post: { id: number; title: string; language: string | null }
}
interface HitPage {
  data: Hit[]
  total_count: number
  has_more: boolean
  next_cursor: string | null
}

let t: TestApp
let author: LoggedIn
let other: LoggedIn
let german: LoggedIn
/** A word only this file's posts have: every query carries it, so other files' posts never match. */
const marker = `srch${Date.now()}`
const ids: Record<string, number> = {}
const isPostgres = () => dialect() !== 'sqlite'

const search = (query: string, who: LoggedIn | null = null, extra = '') => t.app.inject({ url: `${V2}/search?q=${encodeURIComponent(query)}${extra}`, headers: who?.headers ?? {} })

/** The ids a query finds, best first. */
async function found(query: string, who: LoggedIn | null = null): Promise<number[]> {
  const response = await search(`${marker} ${query}`, who, '&limit=50')
  expect(response.statusCode, response.body).toBe(200)
  return response.json<HitPage>().data.map((hit) => hit.post.id)
}

async function write(name: string, who: LoggedIn, payload: Record<string, unknown>): Promise<void> {
  const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: who.headers, payload: { ...payload, text: `${payload.text as string} ${marker}` } })
  expect(response.statusCode, response.body).toBe(201)
  ids[name] = response.json<{ id: number }>().id
}

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  german = await seedAndLogin(t.app)
  const localized = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${german.user.id}`, headers: german.headers, payload: { locale: 'de-AT' } })
  expect(localized.statusCode, localized.body).toBe(200)
  await write('title', author, { title: 'Databases explained', text: 'A gentle introduction.', language: 'en' })
  await write('text', author, { title: 'Notes', text: 'Each database keeps rows; running queries fast matters.', language: 'en' })
  await write('phrase', author, { title: 'Foxes', text: 'The quick brown fox jumps over the lazy dog.', language: 'en' })
  await write('reversed', author, { title: 'Dogs', text: 'A fox that is quick, and a dog.', language: 'en' })
  await write('html', author, { title: 'Markup <b>bold</b> & "quotes"', text: 'Never <script>alert(1)</script> run markup.', language: 'en' })
  await write('german', german, { title: 'Die Küche', text: 'Unsere Häuser haben eine große Küche und viele Zimmer.' })
  await write('french', author, { title: 'Fromages', text: 'Les fromages de la région sont célèbres.', language: 'fr' })
  await write('spanish', author, { title: 'Bibliotecas', text: 'Las bibliotecas públicas abren hoy.', language: 'es' })
  await write('russian', author, { title: 'Базы данных', text: 'Базы данных хранят строки.', language: 'ru' })
  await write('greek', author, { title: 'Βάσεις', text: 'Οι βάσεις δεδομένων αποθηκεύουν γραμμές.', language: 'el' })
  await write('chinese', author, { title: '数据库', text: '我们的数据库很快。', language: 'zh-Hans' })
  await write('private', author, { title: 'Secret database plans', text: 'Only mine.', visibility: 'private', language: 'en' })
  await write('draft', other, { title: 'Draft database', text: 'Not yet.', status: 'draft', language: 'en' })
})

afterAll(async () => {
  await t.close()
})

describe('ranked search', () => {
  it('ranks a match in the title above one in the text, stems English on both databases, and answers each hit with its post', async () => {
    const response = await search(`${marker} database`, null, '&limit=50')
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json<HitPage>()
    expect(page.data.map((hit) => hit.post.id)).toEqual([ids.title, ids.text])
    expect(page.total_count).toBe(2)
    expect(page.data[0]!.rank).toBeGreaterThan(page.data[1]!.rank)
    expect(page.data[0]!.post.title).toBe('Databases explained')
    expect(page.data[0]!.highlights.title).toBe('<mark>Databases</mark> explained')
    expect(page.data[1]!.highlights.text).toContain('<mark>database</mark>')
    // "running" finds "run"'s stem, "runs" too.
    expect((await found('runs')).sort()).toEqual([ids.text, ids.html].sort())
  })

  it('reads the web syntax: a phrase in order, -word, or, and the last word as a prefix while it is typed', async () => {
    expect(await found('"quick brown fox"')).toEqual([ids.phrase])
    expect((await found('quick fox')).sort()).toEqual([ids.phrase, ids.reversed].sort())
    expect(await found('fox -brown')).toEqual([ids.reversed])
    expect((await found('foxes or dogs')).sort()).toEqual([ids.phrase, ids.reversed].sort())
    // Search-as-you-type: "datab" finds "database"; with a space after it, the word is whole.
    expect((await found('datab')).sort()).toEqual([ids.title, ids.text].sort())
    expect(await found('datab ')).toEqual([])
    // Syntax a database would read is only punctuation here.
    expect(await found('database* AND NEAR(x) "unclosed')).toEqual([])
    expect((await search(`${marker} NOT OR AND " ( ) : ^ *`)).statusCode).toBe(200)
  })

  it('highlights as safe HTML: the text escaped, only <mark> added', async () => {
    const response = await search(`${marker} markup`)
    const [hit] = response.json<HitPage>().data
    expect(hit!.post.id).toBe(ids.html)
    expect(hit!.highlights.title).toBe('<mark>Markup</mark> &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot;')
    // SQLite's snippet keeps the text's markup, escaped; PostgreSQL's parser reads it as tags and its headline leaves them out.
    expect(hit!.highlights.text).toContain(isPostgres() ? 'alert(1)  run <mark>markup</mark>' : '&lt;script&gt;alert(1)&lt;/script&gt; run <mark>markup</mark>')
    expect(hit!.highlights.text).not.toContain('<script')
  })

  it("finds German, French, Spanish, Cyrillic, Greek and Chinese text; a post in no language it named is in its author's locale", async () => {
    const post = await t.app.inject({ url: `${V2}/posts/${ids.german}` })
    expect(post.json<{ language: string }>().language).toBe('de-AT')
    expect(await found('Küche')).toEqual([ids.german])
    // Diacritics: folded for Latin letters on SQLite; the German stemmer folds umlauts on PostgreSQL.
    expect(await found('kuche')).toEqual([ids.german])
    expect(await found('große')).toEqual([ids.german])
    expect(await found('fromages')).toEqual([ids.french])
    expect(await found('bibliotecas públicas')).toEqual([ids.spanish])
    expect(await found('данных')).toEqual([ids.russian])
    expect(await found('баз')).toEqual([ids.russian])
    expect(await found('δεδομένων')).toEqual([ids.greek])
    // Chinese is indexed a character at a time and searched as a phrase: in order, not apart.
    expect(await found('数据库')).toEqual([ids.chinese])
    expect(await found('很快')).toEqual([ids.chinese])
    expect(await found('库数')).toEqual([])
    const [chinese] = (await search(`${marker} 数据库`)).json<HitPage>().data
    expect(chinese!.highlights.title).toBe('<mark>数据库</mark>')
    if (isPostgres()) {
      // Stemmed in the post's own language: the singular finds the plural, in German and Russian.
      expect(await found('Haus')).toEqual([ids.german])
      expect(await found('база')).toEqual([ids.russian])
    }
  })

  it('keeps the index with every edit: a new title is found and the old one no longer; a deleted post is gone', async () => {
    const edited = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${ids.phrase}`, headers: author.headers, payload: { title: 'Wolves', text: `A grey wolf. ${marker}` } })
    expect(edited.statusCode, edited.body).toBe(200)
    expect(await found('wolf')).toEqual([ids.phrase])
    expect(await found('"quick brown fox"')).toEqual([])
    const language = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${ids.phrase}`, headers: author.headers, payload: { language: 'de' } })
    expect(language.json<{ language: string }>().language).toBe('de')
    expect(await found('wolf')).toEqual([ids.phrase])
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${ids.reversed}`, headers: author.headers })).statusCode).toBe(200)
    expect(await found('fox')).toEqual([])
  })

  it('searches inside the policy: a private post and a draft are their authors\' hits only, and each total counts what that caller may list', async () => {
    expect(await found('secret')).toEqual([])
    expect(await found('secret', other)).toEqual([])
    expect(await found('secret', author)).toEqual([ids.private])
    expect(await found('draft', author)).toEqual([])
    expect(await found('draft', other)).toEqual([ids.draft])
    const forAuthor = (await search(`${marker} database`, author)).json<HitPage>()
    const forAnyone = (await search(`${marker} database`)).json<HitPage>()
    expect(forAuthor.total_count).toBe(forAnyone.total_count + 1)
    const drafts = (await search(`${marker} database`, other, '&status=draft')).json<HitPage>()
    expect(drafts.data.map((hit) => hit.post.id)).toEqual([ids.draft])
    expect(drafts.total_count).toBe(1)
  })

  it('pages in rank order, by number and by cursor alike; a crafted cursor is 422', async () => {
    const query = `${marker} database or text or fox or markup or wolf`
    const whole = (await search(query, author, '&limit=50')).json<HitPage>()
    expect(whole.total_count).toBeGreaterThan(3)
    const walked: number[] = []
    let cursor: string | null = null
    do {
      const response = await search(query, author, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      expect(response.statusCode, response.body).toBe(200)
      const page = response.json<HitPage>()
      expect(page.total_count).toBe(whole.total_count)
      walked.push(...page.data.map((hit) => hit.post.id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(walked).toEqual(whole.data.map((hit) => hit.post.id))
    const second = (await search(query, author, '&limit=2&page=2')).json<HitPage>()
    expect(second.data.map((hit) => hit.post.id)).toEqual(walked.slice(2, 4))
    for (const bad of ['rWzEsMl0x', 'kMTI', `r${Buffer.from('[1,"x"]').toString('base64url')}`, `r${Buffer.from('[1e999,1]').toString('base64url')}`]) {
      const response = await search(query, null, `&cursor=${bad}`)
      expect(response.statusCode, bad).toBe(422)
      expect(response.json<{ code: string }>().code).toBe('validation_failed')
    }
  })

  it('refuses a query with nothing to find: 422 search_query_empty; a missing q is 422', async () => {
    for (const query of ['-everything', '"" ...', 'or']) {
      const response = await search(query)
      expect(response.statusCode, query).toBe(422)
      expect(response.json<{ code: string; detail: string }>().code).toBe('search_query_empty')
    }
    expect((await t.app.inject({ url: `${V2}/search` })).statusCode).toBe(422)
    expect((await search('x', null, '&type=everything')).statusCode).toBe(422)
    expect((await search('x'.repeat(201))).statusCode).toBe(422)
    // Words past the 16th are read as nothing: the query still answers.
    expect((await search(`${marker} ${'database '.repeat(18)}unheardof`)).json<HitPage>().total_count).toBe(2)
  })

  it("refuses a language that is not a language tag; a post's language can be taken away", async () => {
    const bad = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: 'x', text: 'y', language: 'abcdefghi' } })
    expect(bad.statusCode).toBe(422)
    const cleared = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${ids.french}`, headers: author.headers, payload: { language: null } })
    expect(cleared.json<{ language: string | null }>().language).toBeNull()
    expect(await found('fromages')).toEqual([ids.french])
  })
})

describe('users', () => {
  it('finds users by name or username with the match highlighted, listed as GET /users lists them', async () => {
    const response = await search(german.user.username, null, '&type=users')
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json<{ data: { type: string; rank: null; highlights: { username: string }; user: { id: number; email?: string } }[] }>()
    expect(page.data.map((hit) => hit.user.id)).toEqual([german.user.id])
    expect(page.data[0]!.highlights.username).toBe(`<mark>${german.user.username}</mark>`)
    expect(page.data[0]!.user.email).toBeUndefined()
    // As GET /users?search= takes it: at most 50 characters.
    expect((await search('x'.repeat(51), null, '&type=users')).statusCode).toBe(422)
  })
})

// Last: it takes the index away and makes it again for every post of the database.
describe('the migration', () => {
  it("indexes the posts written before it, each in its author's locale", async () => {
    const down = await migrateTo(t.db, '2026-12-13-02-org-fields')
    expect(down.error).toBeUndefined()
    expect(down.results?.map((result) => result.migrationName).at(-1)).toBe('2026-12-14-01-post-search')
    const now = new Date().toISOString()
    // A row as the schema of that time takes it (the service of today writes a language).
    const old = await t.db
      .insertInto('posts')
      .values({ author_id: german.user.id, title: 'Alte Häuser', text: `Vor der Suche ${marker}`, slug: `old-${marker}`, slug_scope: `u:${german.user.id}`, created_at: now, updated_at: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
    await migrateToLatest(t.db)
    expect(await found('alte')).toEqual([old.id])
    if (isPostgres()) expect(await found('Haus')).toEqual([old.id, ids.german])
  })
})
