// Ranked search's SQL (docs/api.md "Search"): the index a post's writes keep in their own
// transaction, and the search itself, inside the same policy condition every list runs
// (filteredPosts): the ranking, the page, the count and the snippets all come from posts the
// reader may list, and nothing is filtered after the query.
//
// SQLite: FTS5 (`post_search`, rowid = the post's id), bm25 with the title weighted above the text,
// snippet() and highlight(), run off the event loop on the read worker's own connection
// (src/db/read-worker.ts): a search matching a tenth of 1,000,000 posts takes its 100-300 ms
// there, not on the one connection every other request waits for. PostgreSQL: a tsvector per post in its language's configuration, the
// query stemmed by each configuration in use (to_tsquery), ts_rank_cd and ts_headline.
import type { RawBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { PASSAGES_HEADLINE, rankType, rowsTsquery, type StemmedQuery, stemQuery, tsMatch, tsRank } from '../../db/full-text.js'
import { readOffLoop } from '../../db/read-worker.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { HitWindow, RankedId } from '../../shared/search-page.js'
import { ftsMatchOf, MARK_END, MARK_START, searchableText, searchConfigurationOf, type SearchQuery } from '../../shared/search-text.js'
import type { PostFilter } from './post.js'
import type { Reader } from './post-policy.js'
import { filteredPosts } from './posts.repository.js'
import type { PostRow } from './posts.table.js'

const DOCUMENT = sql`post_search.document`
const CONFIGURATION = sql`post_search.configuration`

/** How far the title outweighs the text in SQLite's bm25 (PostgreSQL weighs them A and B). */
const TITLE_WEIGHT = 4

/** Writes the post's title and text into the index, replacing what it held for the post. */
export async function indexPostText(db: Executor, row: Pick<PostRow, 'id' | 'title' | 'text' | 'language'>): Promise<void> {
  const title = searchableText(row.title)
  const body = searchableText(row.text)
  if (isPostgres(db)) {
    const configuration = searchConfigurationOf(row.language)
    await sql`insert into post_search (post_id, configuration, title, body, document)
      values (${row.id}, ${configuration}::regconfig, ${title}, ${body},
        setweight(to_tsvector(${configuration}::regconfig, ${title}), 'A') || setweight(to_tsvector(${configuration}::regconfig, ${body}), 'B'))
      on conflict (post_id) do update set configuration = excluded.configuration, title = excluded.title, body = excluded.body, document = excluded.document`.execute(db)
    return
  }
  await sql`delete from post_search where rowid = ${row.id}`.execute(db)
  await sql`insert into post_search (rowid, title, body) values (${row.id}, ${title}, ${body})`.execute(db)
}

/**
 * The posts after `after` by id, a batch at a time, soft-deleted ones too (a restore brings them
 * back as they were): a rebuild. Held on PostgreSQL until the batch's unit ends, so that an edit
 * waits rather than be overwritten with the text read before it (SQLite's unit holds the write lock).
 */
export function postsToIndex(db: Executor, after: number, limit: number): Promise<Pick<PostRow, 'id' | 'title' | 'text' | 'language'>[]> {
  return db
    .selectFrom('posts')
    .select(['id', 'title', 'text', 'language'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .$if(isPostgres(db), (qb) => qb.forShare())
    .execute()
}

/** The match: SQLite's MATCH; on PostgreSQL one GIN scan for any configuration's query, then each post held to its own. */
function matchCondition(db: Executor, query: SearchQuery, stemmed: StemmedQuery): RawBuilder<SqlBool> {
  if (!isPostgres(db)) return sql<SqlBool>`post_search match ${ftsMatchOf(query)}`
  return tsMatch(DOCUMENT, CONFIGURATION, stemmed)
}

/** A post's relevance, higher first: bm25 negated on SQLite (lower is better there); ts_rank_cd over the length on PostgreSQL. */
function rankOf(db: Executor, stemmed: StemmedQuery): RawBuilder<number> {
  if (!isPostgres(db)) return sql<number>`(-bm25(post_search, ${sql.lit(TITLE_WEIGHT)}, 1.0))`
  return tsRank(DOCUMENT, CONFIGURATION, stemmed)
}

/** The posts the reader may list, narrowed by `filter`, that match: joined to the index. */
function matchingPosts(db: Executor, reader: Reader, filter: PostFilter, query: SearchQuery, stemmed: StemmedQuery) {
  const joined = isPostgres(db) ? sql`post_search.post_id` : sql`post_search.rowid`
  return filteredPosts(db, reader, filter)
    .innerJoin('post_search', (join) => join.on(sql<SqlBool>`${joined} = posts.id`))
    .where(() => matchCondition(db, query, stemmed))
}

/** A page of hits in rank order (ties newest first). */
export async function searchPosts(db: Executor, reader: Reader, filter: PostFilter, query: SearchQuery, stemmed: StemmedQuery, window: HitWindow): Promise<RankedId[]> {
  const rank = rankOf(db, stemmed)
  const { after } = window
  const found = matchingPosts(db, reader, filter, query, stemmed)
    .select(['posts.id', rank.as('rank')])
    .$if(after !== undefined, (qb) => qb.where(() => sql<SqlBool>`(${rank}, posts.id) < (cast(${after!.rank} as ${rankType(db)}), ${after!.id})`))
    .orderBy(sql`rank`, 'desc')
    .orderBy('posts.id', 'desc')
    .limit(window.limit)
    .offset(window.offset)
  const rows = await readOffLoop(db, found)
  return rows.map((row) => ({ id: Number(row.id), rank: Number(row.rank) }))
}

/** How many posts the reader may list match: every one counted, for this reader. */
export async function countSearchHits(db: Executor, reader: Reader, filter: PostFilter, query: SearchQuery, stemmed: StemmedQuery): Promise<number> {
  const [row] = await readOffLoop(db, matchingPosts(db, reader, filter, query, stemmed).select((eb) => eb.fn.countAll<number | string>().as('count')))
  return Number(row?.count ?? 0)
}

/** The title with every match marked, and the text's best passage with its matches marked (MARK_START, MARK_END), of each hit. */
export async function snippetsOf(db: Executor, ids: readonly number[], query: SearchQuery, stemmed: StemmedQuery): Promise<Map<number, { title: string; text: string }>> {
  if (ids.length === 0) return new Map()
  const rows = isPostgres(db)
    ? (
        await sql<{ id: number; title: string; text: string }>`
          select post_id as id,
            ts_headline(configuration, title, ${rowsTsquery(stemmed, sql`configuration`)}, ${`HighlightAll=true, StartSel=${MARK_START}, StopSel=${MARK_END}`}) as title,
            ts_headline(configuration, body, ${rowsTsquery(stemmed, sql`configuration`)}, ${PASSAGES_HEADLINE}) as text
          from post_search where post_id = any(cast(${ids} as integer[]))`.execute(db)
      ).rows
    : await readOffLoop(
        db,
        db
          .selectFrom('post_search')
          .select([
            sql<number>`rowid`.as('id'),
            sql<string>`highlight(post_search, 0, ${MARK_START}, ${MARK_END})`.as('title'),
            sql<string>`snippet(post_search, 1, ${MARK_START}, ${MARK_END}, '…', 32)`.as('text'),
          ])
          .where(() => sql<SqlBool>`post_search match ${ftsMatchOf(query)} and rowid in (${sql.join(ids)})`),
      )
  return new Map(rows.map((row) => [Number(row.id), { title: row.title, text: row.text }]))
}

export const postSearchFunctions = { indexPostText, postsToIndex, stemQuery, searchPosts, countSearchHits, snippetsOf }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const postSearchReadTargets: ReadTargets<typeof postSearchFunctions> = {
  indexPostText: 'write',
  postsToIndex: 'primary',
  stemQuery: 'primary',
  searchPosts: 'replica',
  countSearchHits: 'replica',
  snippetsOf: 'replica',
}

export type PostSearchRepository = Repository<typeof postSearchFunctions>
