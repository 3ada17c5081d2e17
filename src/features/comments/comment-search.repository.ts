// Comment search's SQL (docs/api.md "Search"): the index a comment's writes keep in their own
// transaction, and the search itself, held to the post policy inside the query (the posts slice's
// listsPost, a correlated EXISTS per found comment) and to what the viewer sees of a thread:
// ranking, page, count and snippets come from comments the caller may read, nothing is filtered
// after the query. SQLite: FTS5 (`comment_search`, rowid = the comment's id), bm25 and snippet(),
// off the event loop on the read worker. PostgreSQL: a tsvector per comment, ts_rank_cd and
// ts_headline, as post-search.repository.ts does for posts.
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
import type { PostScope } from '../posts/index.js'
import { listsPost } from '../posts/index.js'

const DOCUMENT = sql`comment_search.document`
const CONFIGURATION = sql`comment_search.configuration`

/** What a comment is indexed from: its words, and the language it is read in (its post's). */
export interface CommentToIndex {
  id: number
  text: string
  language: string | null
}

/** Writes the comment's words into the index, replacing what it held for it; an erased comment ('') leaves it. */
export async function indexCommentText(db: Executor, comment: CommentToIndex): Promise<void> {
  if (isPostgres(db)) {
    if (comment.text === '') {
      await db.deleteFrom('comment_search').where('comment_id', '=', comment.id).execute()
      return
    }
    const configuration = searchConfigurationOf(comment.language)
    const body = searchableText(comment.text)
    await sql`insert into comment_search (comment_id, configuration, body, document)
      values (${comment.id}, ${configuration}::regconfig, ${body}, to_tsvector(${configuration}::regconfig, ${body}))
      on conflict (comment_id) do update set configuration = excluded.configuration, body = excluded.body, document = excluded.document`.execute(db)
    return
  }
  await sql`delete from comment_search where rowid = ${comment.id}`.execute(db)
  if (comment.text !== '') await sql`insert into comment_search (rowid, body) values (${comment.id}, ${searchableText(comment.text)})`.execute(db)
}

/** Takes every comment of an author out of the index (their account removed for good: the words are erased). */
export async function unindexCommentsOf(db: Executor, authorId: number): Promise<void> {
  const theirs = db.selectFrom('comments').select('comments.id').where('comments.author_id', '=', authorId)
  if (isPostgres(db)) await db.deleteFrom('comment_search').where('comment_id', 'in', theirs).execute()
  else await sql`delete from comment_search where rowid in (${theirs})`.execute(db)
}

/** The comments after `after` by id, a batch at a time, with their posts' languages: a rebuild. Held on PostgreSQL until the batch's unit ends, as postsToIndex. */
export async function commentsToIndex(db: Executor, after: number, limit: number): Promise<CommentToIndex[]> {
  const rows = await db
    .selectFrom('comments')
    .innerJoin('posts', 'posts.id', 'comments.post_id')
    .select(['comments.id', 'comments.text', 'posts.language'])
    .where('comments.id', '>', after)
    .orderBy('comments.id')
    .limit(limit)
    .$if(isPostgres(db), (qb) => qb.forShare('comments'))
    .execute()
  return rows.map((row) => ({ id: Number(row.id), text: row.text, language: row.language }))
}

function matchCondition(db: Executor, query: SearchQuery, stemmed: StemmedQuery): RawBuilder<SqlBool> {
  return isPostgres(db) ? tsMatch(DOCUMENT, CONFIGURATION, stemmed) : sql<SqlBool>`comment_search match ${ftsMatchOf(query)}`
}

const rankOf = (db: Executor, stemmed: StemmedQuery): RawBuilder<number> => (isPostgres(db) ? tsRank(DOCUMENT, CONFIGURATION, stemmed) : sql<number>`(-bm25(comment_search))`)

/**
 * The comments the scope's reader reads whole that match: visible ones, and their own hidden ones
 * (a moderator finds hidden comments in the thread, not here); none hidden with its author's
 * account, none by someone the reader blocked; on a post the scope lists.
 */
function matchingComments(db: Executor, scope: PostScope, query: SearchQuery, stemmed: StemmedQuery) {
  const viewer = scope.reader.userId
  const joined = isPostgres(db) ? sql`comment_search.comment_id` : sql`comment_search.rowid`
  return db
    .selectFrom('comment_search')
    .innerJoin('comments', (join) => join.on(sql<SqlBool>`${joined} = comments.id`))
    .where(() => matchCondition(db, query, stemmed))
    .where('comments.is_deleted', '=', 0)
    .where((eb) =>
      viewer === null ? eb('comments.status', '=', 'visible') : eb.or([eb('comments.status', '=', 'visible'), eb.and([eb('comments.status', '=', 'hidden'), eb('comments.author_id', '=', viewer)])]),
    )
    .$if(viewer !== null, (qb) => qb.where(() => sql<SqlBool>`not exists (select 1 from user_blocks where user_blocks.blocker_id = ${viewer} and user_blocks.blocked_id = comments.author_id)`))
    .where(() => listsPost(db, scope, 'comments.post_id'))
}

/** A page of hits in rank order (ties newest first). */
export async function searchComments(db: Executor, scope: PostScope, query: SearchQuery, stemmed: StemmedQuery, window: HitWindow): Promise<RankedId[]> {
  const rank = rankOf(db, stemmed)
  const { after } = window
  const found = matchingComments(db, scope, query, stemmed)
    .select(['comments.id', rank.as('rank')])
    .$if(after !== undefined, (qb) => qb.where(() => sql<SqlBool>`(${rank}, comments.id) < (cast(${after!.rank} as ${rankType(db)}), ${after!.id})`))
    .orderBy(sql`rank`, 'desc')
    .orderBy('comments.id', 'desc')
    .limit(window.limit)
    .offset(window.offset)
  const rows = await readOffLoop(db, found)
  return rows.map((row) => ({ id: Number(row.id), rank: Number(row.rank) }))
}

/** How many comments the reader may read match: every one counted, for this reader. */
export async function countCommentHits(db: Executor, scope: PostScope, query: SearchQuery, stemmed: StemmedQuery): Promise<number> {
  const [row] = await readOffLoop(db, matchingComments(db, scope, query, stemmed).select((eb) => eb.fn.countAll<number | string>().as('count')))
  return Number(row?.count ?? 0)
}

/** Each hit's best passage with its matches marked (MARK_START, MARK_END). */
export async function commentSnippetsOf(db: Executor, ids: readonly number[], query: SearchQuery, stemmed: StemmedQuery): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const rows = isPostgres(db)
    ? (
        await sql<{ id: number; text: string }>`
          select comment_id as id,
            ts_headline(configuration, body, ${rowsTsquery(stemmed, CONFIGURATION)}, ${PASSAGES_HEADLINE}) as text
          from comment_search where comment_id = any(cast(${ids} as integer[]))`.execute(db)
      ).rows
    : await readOffLoop(
        db,
        db
          .selectFrom('comment_search')
          .select([sql<number>`rowid`.as('id'), sql<string>`snippet(comment_search, 0, ${MARK_START}, ${MARK_END}, '…', 32)`.as('text')])
          .where(() => sql<SqlBool>`comment_search match ${ftsMatchOf(query)} and rowid in (${sql.join(ids)})`),
      )
  return new Map(rows.map((row) => [Number(row.id), row.text]))
}

export const commentSearchFunctions = { indexCommentText, unindexCommentsOf, commentsToIndex, stemQuery, searchComments, countCommentHits, commentSnippetsOf }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const commentSearchReadTargets: ReadTargets<typeof commentSearchFunctions> = {
  indexCommentText: 'write',
  unindexCommentsOf: 'write',
  commentsToIndex: 'primary',
  stemQuery: 'primary',
  searchComments: 'replica',
  countCommentHits: 'replica',
  commentSnippetsOf: 'replica',
}

export type CommentSearchRepository = Repository<typeof commentSearchFunctions>
