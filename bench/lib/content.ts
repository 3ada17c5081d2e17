// `npm run bench -- --only content`: what the content model costs, at 10,000 posts and at
// 1,000,000 (--list-sizes), in alternating rounds on one process beside the list's first page
// newest first (the ratio is to it): the first page sorted by a kept count and by title, with
// expand=author,org, an author's sorted by a custom field, filtered, sorted and expanded at once;
// then, in rounds of their own, writing a post of 10 KB as plain text against the same as
// Markdown (rendered and sanitized on write).
import { patternSeededPosts, seedMixedPostsUpTo, seedOrganizations } from './lists-seed.js'
import type { SeedTarget } from './seed.js'
import { onTarget } from './seed.js'

/** The custom fields the service is started with for this benchmark (CONTENT_SCHEMA). */
export const CONTENT_BENCH_SCHEMA = {
  posts: {
    properties: {
      rating: { type: 'integer', minimum: 0, maximum: 9, visibility: 'public' },
      tags: { type: 'array', items: { type: 'string' }, visibility: 'public' },
    },
  },
}

/** Every post without fields gets a rating of its id modulo 5 and one tag of three: 20% and 33% of posts match. */
async function seedPostFields(target: SeedTarget): Promise<void> {
  const fields = (g: string) => `'{"rating":' || (${g} % 5) || ',"tags":["' || (case ${g} % 3 when 0 then 'go' when 1 then 'sql' else 'web' end) || '"]}'`
  await onTarget(
    target,
    (db) => {
      db.exec(`update posts set fields = ${fields('id')} where fields = '{}'`)
    },
    async (client) => {
      await client.query(`update posts set fields = cast(${fields('id')} as jsonb) where fields = '{}'::jsonb`)
      await client.query('vacuum analyze posts')
    },
  )
}

export interface ContentLoad {
  requestsPerSecond: number
  p50?: number
  p99: number
  non2xx: number
  statusCodes?: Record<string, number>
  cpuMicrosPerRequest?: number
  databaseCpuMicrosPerRequest?: number
}

export interface ContentServer {
  url: string
  stop(): Promise<void>
}

export interface ContentRequest {
  path: string
  method?: string
  headers?: Record<string, string>
  body?: unknown
}

export interface ContentBenchTools {
  target: SeedTarget
  baseRows: number
  sizes: number[]
  startService(): Promise<ContentServer>
  login(url: string, username: string): Promise<string>
  rounds(server: ContentServer, requests: Record<string, ContentRequest>): Promise<Record<string, ContentLoad>>
  fmt(value: number, digits?: number): string
}

export interface ContentBenchResult {
  posts: number
  rows: { name: string; load: ContentLoad; ofFirstPage: number }[]
}

export const FIRST_PAGE = 'first page, newest first (anonymous)'

/** About 10 KB of Markdown of the kinds a post has: headings, emphasis, lists, links, code, a table. */
function markdownOf(bytes: number): string {
  const section = (n: number) =>
    `## Part ${n}\n\nSome *emphasis*, some **strong** text and a [link](https://example.com/${n}) to read.\n\n- one item\n- another, with \`code\`\n\n` +
    `\`\`\`ts\nconst part = ${n}\n\`\`\`\n\n| a | b |\n|---|---|\n| ${n} | ${n + 1} |\n\n> A quote to end part ${n}.\n\n`
  let text = '# A long post\n\n'
  for (let n = 1; text.length < bytes; n++) text += section(n)
  return text.slice(0, bytes)
}

/**
 * Each group of requests in alternating rounds of its own, beside the first page newest first
 * (the group's FIRST_PAGE request), each row's ratio to it; printed as they come.
 */
export async function roundsBesideFirstPage(tools: Pick<ContentBenchTools, 'rounds' | 'fmt'>, server: ContentServer, size: number, groups: Record<string, ContentRequest>[]): Promise<ContentBenchResult['rows']> {
  const { fmt } = tools
  const rows: ContentBenchResult['rows'] = []
  for (const group of groups) {
    const measured = await tools.rounds(server, group)
    const first = measured[FIRST_PAGE]!
    const measuredRows = Object.entries(measured).map(([name, load]) => ({ name, load, ofFirstPage: load.requestsPerSecond / first.requestsPerSecond }))
    rows.push(...(rows.length === 0 ? measuredRows : measuredRows.filter((row) => row.name !== FIRST_PAGE)))
  }
  for (const row of rows) {
    const database = row.load.databaseCpuMicrosPerRequest === undefined ? '' : `, database ${fmt(row.load.databaseCpuMicrosPerRequest)} µs`
    const refused = row.load.non2xx ? `, ${row.load.non2xx} non-2xx (${Object.entries(row.load.statusCodes ?? {}).map(([code, count]) => `${code}: ${count}`).join(', ')})` : ''
    console.log(`   ${fmt(size)} posts, ${row.name}: ${fmt(row.load.requestsPerSecond)} req/s (${fmt(row.ofFirstPage, 2)} of the first page), p50 ${row.load.p50 ?? '?'} ms, p99 ${row.load.p99} ms, CPU ${fmt(row.load.cpuMicrosPerRequest ?? 0)} µs${database}${refused}`)
  }
  return rows
}

export async function benchContent(tools: ContentBenchTools): Promise<ContentBenchResult[]> {
  const { target, fmt } = tools
  await seedOrganizations(target)
  await patternSeededPosts(target, tools.baseRows)
  const results: ContentBenchResult[] = []
  let seeded = tools.baseRows
  const markdown = markdownOf(10_000)
  const plain = 'x'.repeat(10_000)
  for (const size of tools.sizes) {
    process.stdout.write(`   seeding posts of mixed visibility up to ${fmt(size)} ... `)
    await seedMixedPostsUpTo(target, seeded, size, tools.baseRows)
    await seedPostFields(target)
    seeded = Math.max(seeded, size)
    console.log('done')
    const server = await tools.startService()
    try {
      const reader = { authorization: `Bearer ${await tools.login(server.url, 'u2')}` }
      const writer = { authorization: `Bearer ${await tools.login(server.url, 'u3')}`, 'content-type': 'application/json' }
      const requests: Record<string, ContentRequest> = {
        [FIRST_PAGE]: { path: '/api/v2/posts?limit=10' },
        'sort=-reaction_count (anonymous)': { path: '/api/v2/posts?limit=10&sort=-reaction_count' },
        'sort=title (anonymous)': { path: '/api/v2/posts?limit=10&sort=title' },
        'expand=author,org (signed in)': { path: '/api/v2/posts?limit=10&expand=author,org', headers: reader },
        // Several keys sort the posts tied on the first: a list narrowed to one author's (UNINDEXED_SORT_MAX_POSTS).
        "an author's, visibility=public, sort=-comment_count,title, expand=author,org (signed in)": { path: '/api/v2/posts?limit=10&author_id=1&visibility=public&sort=-comment_count,title&expand=author,org', headers: reader },
        // Filters: on an indexed column, with a sort and expand; on a custom field that a fifth of
        // the posts match (newest first, then sorted and expanded); on one that none match (every
        // listable post is read).
        'filter=org_id = 7, sort=-created_at, expand=author,org (signed in)': { path: `/api/v2/posts?limit=10&filter=${encodeURIComponent('org_id = 7')}&sort=-created_at&expand=author,org`, headers: reader },
        'filter=fields.rating = 4 (anonymous)': { path: `/api/v2/posts?limit=10&filter=${encodeURIComponent('fields.rating = 4')}` },
        'filter=fields.rating = 4 && fields.tags ~ "go", sort=title, expand=author,org (signed in)': { path: `/api/v2/posts?limit=10&filter=${encodeURIComponent('fields.rating = 4 && fields.tags ~ "go"')}&sort=title&expand=author,org`, headers: reader },
        // A custom field sorts the posts it chooses from, as several keys do: a list narrowed to one author's.
        "an author's, sort=-fields.rating,title (signed in)": { path: '/api/v2/posts?limit=10&author_id=1&sort=-fields.rating,title', headers: reader },
        "an author's, filter=fields.rating = 9 (none match; anonymous)": { path: `/api/v2/posts?limit=10&author_id=1&filter=${encodeURIComponent('fields.rating = 9')}` },
      }
      const writes: Record<string, ContentRequest> = {
        [FIRST_PAGE]: requests[FIRST_PAGE]!,
        'create, 10 KB plain': { path: '/api/v2/posts', method: 'POST', headers: writer, body: { title: 'Plain {n}', text: plain } },
        'create, 10 KB Markdown': { path: '/api/v2/posts', method: 'POST', headers: writer, body: { title: 'Markdown {n}', text: markdown, format: 'markdown' } },
      }
      // The reads first, in rounds of their own: writes among them would grow the lists they read
      // (thousands of posts a round, past the filter's bound at 10,000). Then the writes, each
      // beside the first page in the same rounds.
      const rows = await roundsBesideFirstPage(tools, server, size, [requests, writes])
      results.push({ posts: size, rows })
    } finally {
      await server.stop()
    }
  }
  return results
}
