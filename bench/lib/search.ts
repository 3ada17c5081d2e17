// `npm run bench -- --only search`: ranked search (GET /api/v2/search) at 10,000 posts and at
// 1,000,000 (--list-sizes), one request at a time (its own latency), in alternating rounds on one
// process beside the list's first page
// newest first (the ratio is to it) and beside the substring search it replaces (`search=` on
// the v2 list). Every seeded post's text ends in three words (bench/lib/lists-seed.ts): one a
// tenth of the posts have (common0..9), one a thousandth have (medium0..999), one a hundred-
// thousandth have (rare0..99999). A query as typed is a prefix of its last word ("medium3" also
// finds medium30..39 and medium300..399: 11% of the posts); with a space after it the word is
// whole. Words ending in 3 are on public, published posts (bench/lib/lists-seed.ts), which every
// caller may list.
import type { ContentBenchTools, ContentLoad, ContentRequest } from './content.js'
import { FIRST_PAGE, roundsBesideFirstPage } from './content.js'
import { patternSeededPosts, seedMixedPostsUpTo, seedOrganizations } from './lists-seed.js'

export interface SearchBenchResult {
  posts: number
  rows: { name: string; load: ContentLoad; ofFirstPage: number }[]
}

const q = (text: string) => `/api/v2/search?limit=10&q=${encodeURIComponent(text)}`

/** About 2 KB of prose: what a post's index entry is made of. */
const PROSE = 'Search engines rank documents by how often the words of a query appear in them and how rare those words are across every document. '.repeat(16)

export async function benchSearch(tools: ContentBenchTools): Promise<SearchBenchResult[]> {
  const { target, fmt } = tools
  await seedOrganizations(target)
  await patternSeededPosts(target, tools.baseRows)
  const results: SearchBenchResult[] = []
  let seeded = tools.baseRows
  for (const size of tools.sizes) {
    process.stdout.write(`   seeding posts of mixed visibility up to ${fmt(size)}, with their search index ... `)
    await seedMixedPostsUpTo(target, seeded, size, tools.baseRows)
    seeded = Math.max(seeded, size)
    console.log('done')
    const server = await tools.startService()
    try {
      const member = { authorization: `Bearer ${await tools.login(server.url, 'u4')}` }
      const writer = { authorization: `Bearer ${await tools.login(server.url, 'u3')}`, 'content-type': 'application/json' }
      const requests: Record<string, ContentRequest> = {
        [FIRST_PAGE]: { path: '/api/v2/posts?limit=10' },
        'substring, search=medium3 (the v2 list; 11% of posts; anonymous)': { path: '/api/v2/posts?limit=10&search=medium3' },
        'ranked, q=medium3 (as typed: a prefix, 11% of posts; anonymous)': { path: q('medium3') },
        'ranked, q=medium3 (as typed; member of 10 organizations)': { path: q('medium3'), headers: member },
        'ranked, q="medium3 " (a whole word, 0.1% of posts; anonymous)': { path: q('medium3 ') },
        'ranked, q="medium3 " (a whole word; member of 10 organizations)': { path: q('medium3 '), headers: member },
        'ranked, q="rare4242 " (0.001% of posts; anonymous)': { path: q('rare4242 ') },
        'ranked, q="common3 " (10% of posts; anonymous)': { path: q('common3 ') },
        'ranked, q=\'"mixed visibility" medium3 -rare3 \' (a phrase, a word, an exclusion; anonymous)': { path: q('"mixed visibility" medium3 -rare3 ') },
      }
      // One post edited over and over: each edit keeps the version it replaces and lets the oldest past POST_REVISIONS_KEPT go.
      const edited = (await (await fetch(`${server.url}/api/v2/posts`, { method: 'POST', headers: writer, body: JSON.stringify({ title: 'Edited', text: PROSE }) })).json()) as { id: number }
      const writes: Record<string, ContentRequest> = {
        [FIRST_PAGE]: requests[FIRST_PAGE]!,
        'create, 2 KB of prose': { path: '/api/v2/posts', method: 'POST', headers: writer, body: { title: 'Prose {n}', text: PROSE } },
        'edit, 2 KB of prose (keeps a revision)': { path: `/api/v2/posts/${edited.id}`, method: 'PATCH', headers: writer, body: { text: `${PROSE} {n}` } },
      }
      const rows = await roundsBesideFirstPage(tools, server, size, [requests, writes])
      results.push({ posts: size, rows })
    } finally {
      await server.stop()
    }
  }
  return results
}
