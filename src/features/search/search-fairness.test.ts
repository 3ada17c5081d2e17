// One client's searches must not hold up everyone else (SQLite runs a query on the thread that
// asks for it): a ranked search that every post matches ranks, counts and highlights on the read
// worker's own connection (src/db/read-worker.ts), and so does a list's substring search
// (`search=`, which scans every title and text), so other requests keep completing meanwhile.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, dialect } from '../../../test/helpers/app.js'
import { completedAtLeast, completedDuring, quickRequestMs } from '../../../test/helpers/pace.js'
import { V1, V2 } from '../../../test/helpers/users.js'

const POSTS = 40_000
const word = `everywhere${Date.now() % 100000}`
let t: TestApp

beforeAll(async () => {
  t = await createTestApp({ ANONYMOUS_RATE_LIMIT: '1000000/60' })
  const now = new Date().toISOString()
  const author = await sql<{ id: number }>`insert into users (name, username, email, hashed_password, profile_image_url, created_at, updated_at)
    values ('Fair', ${`fair${Date.now() % 100000}`}, ${`fair${Date.now()}@example.com`}, 'x', '/media/avatars/default.svg', ${now}, ${now}) returning id`.execute(t.db)
  const authorId = author.rows[0]!.id
  // Posts written around the service, and their index entries as the service writes them.
  if (dialect() === 'sqlite') {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${POSTS})
      insert into posts (author_id, title, text, slug, slug_scope, published_at, created_at, updated_at)
      select ${authorId}, 'Post ' || i, ${`Some words and ${word} again `} || i, 'fair-' || i, ${`u:${authorId}`}, ${now}, ${now}, ${now} from n`.execute(t.db)
    await sql`insert into post_search (rowid, title, body) select id, title, text from posts where author_id = ${authorId}`.execute(t.db)
  } else {
    await sql`insert into posts (author_id, title, text, slug, slug_scope, published_at, created_at, updated_at)
      select ${authorId}, 'Post ' || i, ${`Some words and ${word} again `} || i, 'fair-' || i, ${`u:${authorId}`}, ${now}, ${now}, ${now} from generate_series(1, ${POSTS}) as i`.execute(t.db)
    await sql`insert into post_search (post_id, configuration, title, body, document)
      select id, 'simple', title, text, setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', text), 'B') from posts where author_id = ${authorId}`.execute(t.db)
  }
}, 300_000)
afterAll(() => t.close())


describe('ranked search over many matches', () => {
  it('answers other requests while searches that every post matches are ranked and counted', async () => {
    const quickMs = await quickRequestMs(t.app, `${V2}/posts?limit=1`)
    const searches = Promise.all([1, 2, 3].map(() => t.app.inject({ url: `${V2}/search?q=${word}%20` })))
    const { completed, inFlightMs } = await completedDuring(t.app, `${V2}/posts?limit=1`, searches)
    for (const answer of await searches) expect(answer.json()).toMatchObject({ total_count: POSTS })
    const expected = completedAtLeast(inFlightMs, quickMs)
    if (dialect() === 'sqlite') expect(completed, `${completed} in ${Math.round(inFlightMs)} ms at ${quickMs.toFixed(1)} ms a request`).toBeGreaterThanOrEqual(expected)
  })
})

describe("a list's substring search over many posts", () => {
  it('answers other requests while lists narrowed by search= scan every title and text', async () => {
    const quickMs = await quickRequestMs(t.app, `${V2}/posts?limit=1`)
    // Version 2 counts the total (a second scan); version 1 pages the same way.
    const scans = Promise.all([`${V2}/posts?search=${word}&limit=10`, `${V2}/posts?search=${word}&limit=10&page=2`, `${V1}/posts?search=${word}&limit=10`].map((url) => t.app.inject({ url })))
    const { completed, inFlightMs } = await completedDuring(t.app, `${V2}/posts?limit=1`, scans)
    for (const answer of await scans) expect(answer.statusCode, answer.body).toBe(200)
    expect((await scans)[0]!.json()).toMatchObject({ total_count: POSTS })
    const expected = completedAtLeast(inFlightMs, quickMs)
    if (dialect() === 'sqlite') expect(completed, `${completed} in ${Math.round(inFlightMs)} ms at ${quickMs.toFixed(1)} ms a request`).toBeGreaterThanOrEqual(expected)
  })
})
