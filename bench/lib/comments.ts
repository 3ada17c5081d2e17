// `npm run bench -- --only comments`: the conversation under one post, at 10,000 comments on it
// and at 1,000,000 (--list-sizes): a page of its threads (each with its first replies, counts and
// the reader's own reactions), a deep cursor page, one comment, a comment's replies, a reaction
// PUT on the post and on a comment, each beside a get of the post in the same rounds on one
// process (the ratio is to the get); then comment search (one comment matches; every one does),
// one request at a time beside the get likewise: at 50 connections a search every comment
// matches queues behind itself on SQLite's read worker for longer than a round, and the next
// request's round measures that queue.
import type { SeedTarget } from './seed.js'
import { onTarget } from './seed.js'

export interface CommentsLoad {
  requestsPerSecond: number
  p99: number
  non2xx: number
  cpuMicrosPerRequest?: number
  databaseCpuMicrosPerRequest?: number
}

export interface CommentsServer {
  url: string
  stop(): Promise<void>
}

export interface CommentsRequest {
  path: string
  method?: string
  headers?: Record<string, string>
  randomUserId?: boolean
  maxUserId?: number
}

export interface CommentsBenchTools {
  target: SeedTarget
  sizes: number[]
  startService(): Promise<CommentsServer>
  login(url: string, username: string): Promise<string>
  /** The requests in alternating rounds on one process, warmed up first, at `connections` (50 unless given); each one's median. */
  rounds(server: CommentsServer, requests: Record<string, CommentsRequest>, connections?: number): Promise<Record<string, CommentsLoad>>
  fmt(value: number, digits?: number): string
}

export interface CommentsRow {
  name: string
  load: CommentsLoad
  /** req/s ÷ the get of the post's in the same rounds. */
  ofGet: number
}

export interface CommentsBenchResult {
  comments: number
  rows: CommentsRow[]
}

/** The post the conversation is under: public and published in every seeding (bench/lib/lists-seed.ts keeps ids ending in 0 public). */
const POST = 10
/** Comments are written by users 1..AUTHORS; the reader (u2) has reacted to every twentieth. */
const AUTHORS = 1000
const READER = 'u2'
const READER_ID = 2
/** Reacts in the PUT scenarios. */
const REACTOR = 'u3'
const GET = 'get the post'
const TEXT = 'A comment seeded for the benchmark, number '
const NOW = { sqlite: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`, postgres: 'now()' }

/**
 * Comments `from + 1`..`to` on the post, by id: one in ten (ids ending in 0) a reply to the
 * top-level comment nine before it, the rest top-level; one in five liked by its author's
 * neighbour, one in twenty by the reader. The counts are as the triggers keep them.
 */
async function seedCommentsUpTo(target: SeedTarget, from: number, to: number): Promise<void> {
  if (to <= from) return
  const columns = (now: string) => `g, ${POST}, 1 + (g % ${AUTHORS}), case when g % 10 = 0 then g - 9 end, '${TEXT}' || g, ${now}, ${now}`
  const insert = `insert into comments (id, post_id, author_id, parent_id, text, created_at, updated_at)`
  const reactions = (source: string, now: string) =>
    `insert into comment_reactions (comment_id, user_id, kind, created_at)
     select g, 1 + ((g + 1) % ${AUTHORS}), 'like', ${now} from ${source} where g % 5 = 0
     union all select g, ${READER_ID}, 'love', ${now} from ${source} where g % 20 = 0`
  await onTarget(
    target,
    (db) => {
      db.pragma('synchronous = OFF')
      const series = `series(g) as (select ${from + 1} union all select g + 1 from series where g < ${to})`
      // The counting triggers run as they do for a comment written through the API.
      db.exec(`with recursive ${series} ${insert} select ${columns(NOW.sqlite)} from series`)
      db.exec(`with recursive ${series} ${reactions('series', NOW.sqlite)}`)
      // The search index, as the service writes it (the post's language is none: one tokenizer either way).
      db.exec(`insert into comment_search (rowid, body) select id, text from comments where id > ${from} and id <= ${to}`)
      db.exec('analyze')
    },
    async (client) => {
      const series = `generate_series(${from + 1}, ${to}) as g`
      // Without the counting triggers: a million of them updating one post's row in one
      // transaction walk a chain of a million row versions. The counts are set after.
      await client.query('set session_replication_role = replica')
      await client.query(`${insert} select ${columns(NOW.postgres)} from ${series}`)
      await client.query('reset session_replication_role')
      await client.query(`update posts set comment_count = (select count(*) from comments where post_id = ${POST} and status = 'visible' and not is_deleted) where id = ${POST}`)
      await client.query(
        `update comments set reply_count = replies.count from (select parent_id, count(*) as count from comments where post_id = ${POST} and parent_id > ${from - 9} group by parent_id) as replies where comments.id = replies.parent_id`,
      )
      await client.query(`select setval(pg_get_serial_sequence('comments', 'id'), ${to})`)
      await client.query(reactions(series, NOW.postgres))
      // The search index, as the service writes it for a post of no language ('simple'); the GIN
      // index built once after, rather than a million times one entry.
      await client.query('drop index comment_search_document_idx')
      await client.query(`insert into comment_search (comment_id, configuration, body, document) select id, 'simple', text, to_tsvector('simple', text) from comments where id > ${from} and id <= ${to}`)
      await client.query('create index comment_search_document_idx on comment_search using gin (document) with (fastupdate = off)')
      await client.query('vacuum analyze')
    },
  )
}

/** The cursor a page's `next_cursor` would carry for the key `id` (src/api/common/page-envelope.ts). */
const cursorAfter = (id: number) => Buffer.from(`k${id}`).toString('base64url')

export async function benchComments(tools: CommentsBenchTools): Promise<CommentsBenchResult[]> {
  const { fmt } = tools
  const results: CommentsBenchResult[] = []
  let seeded = 0
  for (const size of tools.sizes) {
    process.stdout.write(`   seeding ${fmt(size)} comments on one post ... `)
    await seedCommentsUpTo(tools.target, seeded, size)
    seeded = Math.max(seeded, size)
    console.log('done')
    const server = await tools.startService()
    try {
      const reader = { authorization: `Bearer ${await tools.login(server.url, READER)}` }
      const reactor = { authorization: `Bearer ${await tools.login(server.url, REACTOR)}` }
      const comments = `/api/v2/posts/${POST}/comments?limit=10`
      const requests: Record<string, CommentsRequest> = {
        [GET]: { path: `/api/v2/posts/${POST}` },
        'threads, first page, oldest first': { path: comments },
        'threads, first page, newest first': { path: `${comments}&order=newest` },
        'threads, first page, signed in (my_reactions)': { path: comments, headers: reader },
        'threads, a cursor page halfway': { path: `${comments}&cursor=${cursorAfter(Math.floor(size / 2))}` },
        'one comment': { path: '/api/v2/comments/:id', randomUserId: true, maxUserId: size },
        "a comment's replies": { path: '/api/v2/comments/1/replies?limit=10' },
        'PUT a reaction on the post (the same one again)': { path: `/api/v2/posts/${POST}/reactions/like`, method: 'PUT', headers: reactor },
        'PUT a reaction on a random comment': { path: '/api/v2/comments/:id/reactions/wow', method: 'PUT', headers: reactor, randomUserId: true, maxUserId: size },
      }
      const searches: Record<string, CommentsRequest> = {
        [GET]: requests[GET]!,
        // Trailing spaces: whole words, not the prefix search-as-you-type reads in a last word.
        'search its comments: one matches': { path: `/api/v2/search?type=comments&q=benchmark%20number%20${Math.floor(size / 2) + 1}%20&limit=10` },
        'search its comments: every one matches (a page and the total)': { path: '/api/v2/search?type=comments&q=benchmark%20&limit=10' },
      }
      const rows: CommentsRow[] = []
      for (const [measured, connections] of [[await tools.rounds(server, requests), 50], [await tools.rounds(server, searches, 1), 1]] as const) {
        const get = measured[GET]!
        for (const [name, load] of Object.entries(measured)) rows.push({ name: connections === 1 ? `${name} (one at a time)` : name, load, ofGet: load.requestsPerSecond / get.requestsPerSecond })
      }
      for (const row of rows) {
        const database = row.load.databaseCpuMicrosPerRequest === undefined ? '' : `, database ${fmt(row.load.databaseCpuMicrosPerRequest)} µs`
        console.log(
          `   ${fmt(size)} comments, ${row.name}: ${fmt(row.load.requestsPerSecond)} req/s (${fmt(row.ofGet, 2)} of the get), p99 ${row.load.p99} ms, CPU ${fmt(row.load.cpuMicrosPerRequest ?? 0)} µs${database}${row.load.non2xx ? `, ${row.load.non2xx} non-2xx` : ''}`,
        )
      }
      results.push({ comments: size, rows })
    } finally {
      await server.stop()
    }
  }
  return results
}
