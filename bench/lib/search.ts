// `npm run bench -- --only search`: ranked search (GET /api/v2/search) at 10,000 posts and at
// 1,000,000 (--list-sizes), in alternating rounds on one process beside the list's first page
// newest first (the ratio is to it) and beside the substring search it replaces (`search=` on
// the v2 list). Every seeded post's text ends in three words (bench/lib/lists-seed.ts): one a
// tenth of the posts have (common0..9), one a thousandth have (medium0..999), one a hundred-
// thousandth have (rare0..99999). A query as typed is a prefix of its last word ("medium7"
// also finds medium70..79 and medium700..799: 11% of the posts); with a space after it the word
// is whole. Then, in rounds of their own, writing a post (its index entry in its transaction).
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
        'substring, search=medium7 (the v2 list; 11% of posts; anonymous)': { path: '/api/v2/posts?limit=10&search=medium7' },
        'ranked, q=medium7 (as typed: a prefix, 11% of posts; anonymous)': { path: q('medium7') },
        'ranked, q=medium7 (as typed; member of 10 organizations)': { path: q('medium7'), headers: member },
        'ranked, q="medium7 " (a whole word, 0.1% of posts; anonymous)': { path: q('medium7 ') },
        'ranked, q="medium7 " (a whole word; member of 10 organizations)': { path: q('medium7 '), headers: member },
        'ranked, q="rare4242 " (0.001% of posts; anonymous)': { path: q('rare4242 ') },
        'ranked, q="common3 " (10% of posts; anonymous)': { path: q('common3 ') },
        'ranked, q=\'"mixed visibility" medium7 -rare7 \' (a phrase, a word, an exclusion; anonymous)': { path: q('"mixed visibility" medium7 -rare7 ') },
      }
      const writes: Record<string, ContentRequest> = {
        [FIRST_PAGE]: requests[FIRST_PAGE]!,
        'create, 2 KB of prose': { path: '/api/v2/posts', method: 'POST', headers: writer, body: { title: 'Prose {n}', text: PROSE } },
      }
      const rows = await roundsBesideFirstPage(tools, server, size, [requests, writes])
      results.push({ posts: size, rows })
    } finally {
      await server.stop()
    }
  }
  return results
}
