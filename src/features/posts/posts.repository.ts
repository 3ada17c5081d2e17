// The posts feature's SQL, the only place it lives. Every function takes the executor (db or a
// transaction) first and returns rows of the posts table (PostRow); the service turns them into
// Posts. A post is visible while it is not soft-deleted; soft-deleting a user soft-deletes their
// posts too, so no read joins the author. Every listing, search, page and count is narrowed by
// `listedBy`, the post policy's grants compiled to SQL (post-policy.ts): nothing is filtered
// after the query.
import type { Expression, ExpressionBuilder, RawBuilder, SqlBool } from 'kysely'
import { CompiledQuery, sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import { idListValue, inIdList } from '../../db/id-list.js'
import { readOffLoop } from '../../db/read-worker.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Database, Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import { narrowedByIndex } from './filter-language.js'
import type { PostFilter } from './post.js'
import { fieldSortKey, filterCondition } from './post-filter.repository.js'
import type { Audience, Reader, ReadGrant } from './post-policy.js'
import { ANONYMOUS, orgsOf, POST_STATUSES, READ_GRANTS, VISIBILITIES } from './post-policy.js'
import type { SortColumn, SortedAfter, SortKey } from './post-sort.js'
import type { PostRow } from './posts.table.js'
import { POST_COLUMNS } from './posts.table.js'

type PostsExpressions = ExpressionBuilder<Database, 'posts'>

/**
 * The posts whose author the reader has not blocked (the blocks slice's user_blocks, read here as
 * an insert reads users): every list leaves them out in its one statement. `reader` is their id, a
 * value or a prepared query's argument marker.
 */
const notBlockedBy = (reader: unknown) => sql<SqlBool>`not exists (select 1 from user_blocks where user_blocks.blocker_id = ${reader} and user_blocks.blocked_id = posts.author_id)`

/** The users the reader blocked, as a subquery. */
const blockedByReader = (reader: unknown) => sql<number>`(select user_blocks.blocked_id from user_blocks where user_blocks.blocker_id = ${reader})`

/**
 * What a signed-in reader's listing is compiled with: their id and their organizations by
 * audience, each list one parameter (src/db/id-list.ts), so that every signed-in reader's
 * unnarrowed page and total are the same two statements, prepared once. Values, or a prepared
 * query's argument markers.
 */
interface ReaderArguments {
  userId: unknown
  memberOrgs: unknown
  adminOrgs: unknown
}

function readerArguments(db: Executor, reader: Reader): ReaderArguments {
  return { userId: reader.userId, memberOrgs: idListValue(db, orgsOf(reader, 'org_member')), adminOrgs: idListValue(db, orgsOf(reader, 'org_admin')) }
}

/** One grant's audience as conditions. */
function audienceConditions(eb: PostsExpressions, db: Executor, audience: Audience, reader: ReaderArguments): Expression<SqlBool>[] {
  switch (audience) {
    case 'anyone':
      return []
    case 'author':
      return [eb('posts.author_id', '=', reader.userId as number)]
    case 'org_member':
      return [inIdList(db, 'posts.org_id', reader.memberOrgs)]
    case 'org_admin':
      return [inIdList(db, 'posts.org_id', reader.adminOrgs)]
  }
}

/** `column` is one of `values`, or no condition when they are all there are. */
function oneOf(eb: PostsExpressions, column: 'posts.visibility' | 'posts.status', values: readonly string[], all: readonly string[]): Expression<SqlBool>[] {
  if (values.length === all.length) return []
  return [values.length === 1 ? eb(column, '=', values[0] as string) : eb(column, 'in', values)]
}

/** The listed grants, anyone's (public and published, the trigger-counted ones) first. */
const LISTED_GRANTS = READ_GRANTS.filter((grant) => grant.listed).sort((a, b) => Number(a.audience !== 'anyone') - Number(b.audience !== 'anyone'))

/**
 * The listed grants that may open a post the filter lets through to a reader who is signed in
 * or not, anyone's first: a grant that opens no visibility or status the filter asks for is left
 * out, so a narrowed list (only drafts, only private posts) is one grant's condition, served by
 * that grant's index instead of a walk over every post.
 */
function grantsFor(signedIn: boolean, filter: Pick<PostFilter, 'visibility' | 'status'> = {}): readonly ReadGrant[] {
  return LISTED_GRANTS.filter(
    (grant) =>
      (signedIn || grant.audience === 'anyone') &&
      (filter.visibility === undefined || grant.visibility.includes(filter.visibility)) &&
      (filter.status === undefined || grant.status.includes(filter.status)),
  )
}

function grantCondition(eb: PostsExpressions, db: Executor, grant: ReadGrant, reader: ReaderArguments): Expression<SqlBool> {
  return eb.and([...audienceConditions(eb, db, grant.audience, reader), ...oneOf(eb, 'posts.visibility', grant.visibility, VISIBILITIES), ...oneOf(eb, 'posts.status', grant.status, POST_STATUSES)])
}

/** The grants OR-ed; nothing when no grant opens anything the filter asks for. */
function anyOf(eb: PostsExpressions, db: Executor, grants: readonly ReadGrant[], reader: ReaderArguments): Expression<SqlBool> {
  if (grants.length === 0) return sql<SqlBool>`1 = 0`
  const conditions = grants.map((grant) => grantCondition(eb, db, grant, reader))
  return conditions.length === 1 ? (conditions[0] as Expression<SqlBool>) : eb.or(conditions)
}

/**
 * The posts the reader may see in a list, search, page or count: the policy's listed grants, OR-ed
 * (post-policy.ts READ_GRANTS). Superusers see every live post; anyone else, the public and
 * published posts (served by posts_listed_id_idx) and those their grants open.
 */
export function listedBy(db: Executor, reader: Reader, filter: Pick<PostFilter, 'visibility' | 'status'> = {}) {
  return (eb: PostsExpressions): Expression<SqlBool> => {
    if (reader.isSuperuser) return sql<SqlBool>`1 = 1`
    return anyOf(eb, db, grantsFor(reader.userId !== null, filter), readerArguments(db, reader))
  }
}

/**
 * The grants beyond anyone's and the author's must open disjoint sets of posts (no visibility and
 * status in common): a signed-in reader's total adds their kept counts one by one (countPosts).
 */
for (const [index, grant] of LISTED_GRANTS.entries()) {
  for (const other of LISTED_GRANTS.slice(index + 1)) {
    if (grant.audience === 'author' || other.audience === 'author') continue
    const overlap = grant.visibility.some((visibility) => other.visibility.includes(visibility)) && grant.status.some((status) => other.status.includes(status))
    if (overlap) throw new Error(`the listed grants of ${grant.audience} and ${other.audience} overlap: their kept counts would count a post twice`)
  }
}
// Anyone's listed posts are what `listed_posts` counts (migration 2026-11-29-01-post-visibility).
const anyonesGrants = LISTED_GRANTS.filter((grant) => grant.audience === 'anyone')
if (anyonesGrants.length !== 1 || anyonesGrants[0]!.visibility.join() !== 'public' || anyonesGrants[0]!.status.join() !== 'published') {
  throw new Error("anyone's listed grant is no longer the public and published posts that listed_posts counts")
}

// Query builders: built here, run below (the hot ones through their prepared twins).
export function visiblePosts(db: Executor) {
  return db.selectFrom('posts').where('posts.is_deleted', '=', 0)
}

/** The live posts anyone may list: public and published. */
export function listedPosts(db: Executor) {
  return visiblePosts(db).where(listedBy(db, ANONYMOUS))
}

export function postByIdQuery(db: Executor, id: number) {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id)
}

/** The posts the reader may list, narrowed by author, organization, visibility, status and `search` over title or text (case-insensitive). */
export function filteredPosts(db: Executor, reader: Reader, filter: PostFilter) {
  const pattern = filter.search === undefined ? undefined : likeContains(filter.search)
  return visiblePosts(db)
    .where(listedBy(db, reader, filter))
    // The authors the reader blocked are in none of their lists.
    .$if(reader.userId !== null, (qb) => qb.where(() => notBlockedBy(reader.userId)))
    .$if(filter.authorId !== undefined, (qb) => qb.where('posts.author_id', '=', filter.authorId ?? 0))
    .$if(filter.orgId !== undefined, (qb) => qb.where('posts.org_id', '=', filter.orgId ?? 0))
    .$if(filter.tag !== undefined, (qb) => qb.where('posts.id', 'in', (eb) => eb.selectFrom('post_tags').select('post_tags.post_id').where('post_tags.tag', '=', filter.tag ?? '')))
    .$if(filter.visibility !== undefined, (qb) => qb.where('posts.visibility', '=', filter.visibility ?? 'public'))
    .$if(filter.status !== undefined, (qb) => qb.where('posts.status', '=', filter.status ?? 'published'))
    .$if(pattern !== undefined, (qb) =>
      qb.where(sql<boolean>`(lower(posts.title) like ${pattern} escape '\\' or lower(posts.text) like ${pattern} escape '\\')`),
    )
    // Inside the policy's condition above: a filter narrows what the reader may list, never more.
    .$if(filter.expression !== undefined, (qb) => qb.where((eb) => filterCondition(eb, db, filter.expression!, reader)))
}

// The listings anyone sees, prepared below. As for users: the page's ids from the
// (is_deleted, visibility, status, id) index, then only those rows.
export function newestPostsQuery(db: Executor, offset: number, limit: number) {
  return visiblePosts(db)
    .select(POST_COLUMNS)
    .where('posts.id', 'in', (eb) =>
      eb.selectFrom('posts').select('posts.id').where('posts.is_deleted', '=', 0).where(listedBy(db, ANONYMOUS)).orderBy('posts.id', 'desc').limit(limit).offset(offset),
    )
    .orderBy('posts.id', 'desc')
}

/**
 * The first page anyone sees, straight down posts_listed_id_idx: reading the ids first
 * (newestPostsQuery) pays for a deep OFFSET, and on PostgreSQL cost twice the database time of
 * this on a first page (a hash of the ids and a sort; docs/performance.md).
 */
export function firstPostsQuery(db: Executor, limit: number) {
  return listedPosts(db).select(POST_COLUMNS).orderBy('posts.id', 'desc').limit(limit)
}

/** Keyset paging: the listed posts older than `before` (lower ids), newest first, at any depth. */
export function newestPostsBeforeQuery(db: Executor, before: number, limit: number) {
  return listedPosts(db).select(POST_COLUMNS).where('posts.id', '<', before).orderBy('posts.id', 'desc').limit(limit)
}

export function newestPostsByQuery(db: Executor, authorId: number, offset: number, limit: number) {
  return listedPosts(db).select(POST_COLUMNS).where('posts.author_id', '=', authorId).orderBy('posts.id', 'desc').limit(limit).offset(offset)
}

/**
 * Inserts the post only while its author is live, in one statement. In PostgreSQL the author's
 * row is share-locked, so a concurrent soft delete of the author either waits for this insert
 * (and then hides the new post with the others) or wins and this inserts nothing. SQLite runs
 * one writer at a time, which gives the same guarantee.
 */
export function insertLivePostQuery(
  db: Executor,
  authorId: number,
  title: string,
  text: string,
  mediaUrl: string | null,
  visibility: string,
  status: string,
  orgId: number | null,
  comments: string,
  publishedAt: string | null,
  now: string,
  slug: string,
  slugScope: string,
  format: string,
  html: string | null,
  fields: string,
  language: string | null,
  tags: string,
) {
  return db
    .insertInto('posts')
    .columns(['author_id', 'title', 'text', 'media_url', 'visibility', 'status', 'org_id', 'comments', 'published_at', 'created_at', 'updated_at', 'slug', 'slug_scope', 'format', 'html', 'fields', 'language', 'tags'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          'users.id',
          eb.val(title).as('title'),
          eb.val(text).as('text'),
          eb.val(mediaUrl).as('media_url'),
          eb.val(visibility).as('visibility'),
          eb.val(status).as('status'),
          eb.val(orgId).as('org_id'),
          eb.val(comments).as('comments'),
          eb.val(publishedAt).as('published_at'),
          eb.val(now).as('created_at'),
          eb.val(now).as('updated_at'),
          eb.val(slug).as('slug'),
          eb.val(slugScope).as('slug_scope'),
          eb.val(format).as('format'),
          eb.val(html).as('html'),
          // A parameter in a select list is text to PostgreSQL: the jsonb column needs it cast.
          isPostgres(db) ? sql<string>`cast(${fields} as jsonb)`.as('fields') : eb.val(fields).as('fields'),
          // A post in no language it named is in its author's.
          sql<string | null>`coalesce(cast(${language} as text), users.locale)`.as('language'),
          eb.val(tags).as('tags'),
        ])
        .where('users.id', '=', authorId)
        .where('users.is_deleted', '=', 0)
        .$if(isPostgres(db), (qb) => qb.forShare()),
    )
    .returning(POST_COLUMNS)
}

// The hot queries, compiled once (src/db/fast-path). Each is its plain twin above;
// test/db/prepared.test.ts checks that both return the same rows.
export const preparedPostById = preparedQuery(1, postByIdQuery, { singleRow: true })
export const preparedNewestPosts = preparedQuery(2, newestPostsQuery)
export const preparedFirstPosts = preparedQuery(1, firstPostsQuery)
export const preparedNewestPostsBefore = preparedQuery(2, newestPostsBeforeQuery)
export const preparedNewestPostsBy = preparedQuery(3, newestPostsByQuery)
export const preparedInsertLivePost = preparedQuery(17, insertLivePostQuery)

export interface NewPostRow {
  author_id: number
  title: string
  text: string
  media_url: string | null
  visibility: string
  status: string
  org_id: number | null
  comments: string
  slug: string
  slug_scope: string
  format: string
  html: string | null
  /** Its custom fields as JSON text. */
  fields: string
  /** Its language; its author's locale when null. */
  language: string | null
  /** Its tags as a JSON array (post_tags is written apart: replacePostTags). */
  tags: string
}

export interface PostRowChanges {
  title?: string
  text?: string
  media_url?: string | null
  visibility?: string
  status?: string
  org_id?: number | null
  comments?: string
  published_at?: string
  publish_at?: string | null
  slug?: string
  slug_scope?: string
  format?: string
  html?: string | null
  fields?: string
  language?: string | null
  tags?: string
}

export async function findPostById(db: Executor, id: number): Promise<PostRow | undefined> {
  const [row] = await preparedPostById(db, id)
  return row
}

/** A page of the posts the reader may list, newest first: from `after` (keyset) or at `offset`. */
export function postPageQuery(db: Executor, reader: Reader, filter: PostFilter, { offset, limit, after }: RowWindow) {
  return filteredPosts(db, reader, filter)
    .select(POST_COLUMNS)
    .$if(after !== undefined, (qb) => qb.where('posts.id', '<', after ?? 0))
    .orderBy('posts.id', 'desc')
    .limit(limit)
    .offset(offset)
}

/** Which rows a sorted page reads: `limit` from `offset`, or after the last post of the previous page. */
export interface SortedWindow {
  offset: number
  limit: number
  after?: SortedAfter
}

const TIMESTAMP_SORT_KEYS = new Set<SortColumn>(['created_at', 'updated_at'])

/** A sorted page's row, and its values of the sort's keys as stored (what its cursor carries). */
export interface SortedRow {
  row: PostRow
  keys: unknown[]
}

/** The SQLite index each first sort key walks (migration 2026-12-11-02-post-sort-indexes). */
const SORT_INDEXES: Record<SortColumn, string> = {
  title: 'posts_title_sort_idx',
  updated_at: 'posts_updated_at_sort_idx',
  created_at: 'posts_created_at_sort_idx',
  reaction_count: 'posts_reaction_count_sort_idx',
  comment_count: 'posts_comment_count_sort_idx',
}

/** A sort key's column as an expression of the same order that no index serves: PostgreSQL then sorts the rows it found instead of walking the key's index. */
function unindexedOrderOf(column: `posts.${SortColumn}` | 'posts.id') {
  if (column === 'posts.created_at' || column === 'posts.updated_at') return sql`${sql.ref(column)} + interval '0 seconds'`
  if (column === 'posts.title') return sql`${sql.ref(column)} || ''`
  return sql`${sql.ref(column)} + 0`
}

/** One key of a sorted query: what orders, what the cursor carries, and a cursor's value as SQL. */
interface OrderedKey {
  order: RawBuilder<unknown>
  stored: RawBuilder<unknown>
  after(value: unknown): RawBuilder<unknown>
  descending: boolean
}

function orderedKeyOf(db: Executor, reader: Reader, key: SortKey | { column: 'id'; descending: boolean }, sortFound: boolean): OrderedKey {
  if (!('column' in key)) return { ...fieldSortKey(db, key, reader), descending: key.descending }
  const column = `posts.${key.column}` as const
  // A PostgreSQL timestamp as its own text (read as a value it would keep milliseconds only, and a cursor cut short would skip what follows).
  const stored = isPostgres(db) && key.column !== 'id' && TIMESTAMP_SORT_KEYS.has(key.column) ? sql`${sql.ref(column)}::text` : sql.ref(column)
  return { order: sortFound ? unindexedOrderOf(column) : sql.ref(column), stored, after: (value) => sql`${value}`, descending: key.descending }
}

/**
 * The ids of a page of the posts the reader may list in the order of `keys`, the id last (in the
 * first key's direction) so that the order is total; after `after`, the values and id of the
 * previous page's last post. Where every key goes one way, "after" is one row-value comparison an
 * index range starts at; otherwise "a later key decides where all earlier ones are equal". A
 * column is compared as itself (its index serves the comparison); a field as its sort key.
 */
function sortedPostIdsQuery(db: Executor, reader: Reader, filter: PostFilter, keys: readonly SortKey[], { offset, limit, after }: SortedWindow, sortFound = false) {
  const ordered = [...keys, { column: 'id' as const, descending: keys[0]?.descending ?? true }].map((key) => orderedKeyOf(db, reader, key, false))
  const oneWay = ordered.every((key) => key.descending === ordered[0]!.descending)
  const query = filteredPosts(db, reader, filter)
    .select('posts.id')
    .select(keys.map((_key, i) => ordered[i]!.stored.as(`key_${i}`)))
    .$if(after !== undefined, (qb) =>
      qb.where((eb) => {
        const values = [...(after?.values ?? []), after?.id ?? 0].map((value, i) => ordered[i]!.after(value))
        if (oneWay) return sql<SqlBool>`(${sql.join(ordered.map((key) => key.order))}) ${sql.raw(ordered[0]!.descending ? '<' : '>')} (${sql.join(values)})`
        return eb.or(ordered.map((key, i) => eb.and([...ordered.slice(0, i).map((earlier, j) => eb(earlier.order, '=', values[j]!)), eb(key.order, key.descending ? '<' : '>', values[i]!)])))
      }),
    )
  const orderBy = sortFound ? [...keys, { column: 'id' as const, descending: ordered[0]!.descending }].map((key) => orderedKeyOf(db, reader, key, true)) : ordered
  return orderBy.reduce((sorted, key) => sorted.orderBy(key.order, key.descending ? 'desc' : 'asc'), query).limit(limit).offset(offset)
}

/**
 * Whether a sorted page is read from an index in its order: one key, a column indexed on this
 * database (the kept counts are on SQLite only; no custom field is). Any other sort sorts the
 * posts it chooses from.
 */
export function sortWalksIndex(db: Executor, keys: readonly SortKey[]): boolean {
  const key = keys[0]
  if (keys.length !== 1 || key === undefined || !('column' in key)) return false
  return !isPostgres(db) || (key.column !== 'reaction_count' && key.column !== 'comment_count')
}

/**
 * A sorted page: its ids (sorting keys and ids, not whole rows), then its rows in that order.
 * Where nothing narrows the list to an author, an organization or a search, SQLite is told to walk
 * the first key's index in its order and stop after the page: its planner otherwise filtered every
 * listable post through the visibility index and sorted them all, which held its only connection
 * for seconds at 1,000,000 posts (docs/performance.md). PostgreSQL's planner weighs the LIMIT itself,
 * but not who may read the posts an index narrows the list to: for `org_id = 7` it walked the
 * sort's index through all 1,000,000 posts looking for organization posts a non-member may read,
 * of which there were none (589 ms; 0.2 ms sorting what the organization's index finds). With
 * `few` (the service counted at most UNINDEXED_SORT_MAX_POSTS posts in a list an index narrows,
 * where sortsNarrowedLists) PostgreSQL is made to sort what it finds; a larger list is walked,
 * where matches are many.
 */
export async function listPostsSorted(db: Executor, reader: Reader, filter: PostFilter, keys: readonly SortKey[], window: SortedWindow, few = false): Promise<SortedRow[]> {
  const ids = sortedPostIdsQuery(db, reader, filter, keys, window, few && isPostgres(db)).compile()
  // A list an index narrows (an author, author_id = …) reads few posts: SQLite's planner picks that index.
  const first = keys[0]
  const walked = !isPostgres(db) && !narrowedByIndex(filter) && filter.search === undefined && first !== undefined && 'column' in first ? SORT_INDEXES[first.column] : undefined
  const text = walked ? ids.sql.replace(/^(select .+? from "posts") /, `$1 indexed by "${walked}" `) : ids.sql
  if (walked && text === ids.sql) throw new Error(`the sorted ids query no longer begins as listPostsSorted expects: ${ids.sql.slice(0, 60)}`)
  const compiled = CompiledQuery.raw(text, [...ids.parameters])
  const rows = await runScanning<Record<string, unknown>>(db, filter, { compile: () => compiled, execute: async () => (await db.executeQuery<Record<string, unknown>>(compiled)).rows })
  if (rows.length === 0) return []
  const found = await db.selectFrom('posts').select(POST_COLUMNS).where('posts.id', 'in', rows.map((row) => Number(row.id))).execute()
  const byId = new Map(found.map((row) => [Number(row.id), row]))
  return rows.flatMap((row) => {
    const post = byId.get(Number(row.id))
    return post ? [{ row: post, keys: keys.map((_key, i) => row[`key_${i}`] ?? null) }] : []
  })
}

/** The live post, held until the unit ends in PostgreSQL (SQLite runs one writer at a time): a change decides on the post as it is. */
export function findPostForChange(db: Executor, id: number): Promise<PostRow | undefined> {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id).$if(isPostgres(db), (qb) => qb.forUpdate()).executeTakeFirst()
}

const isAnonymous = (reader: Reader) => reader.userId === null && !reader.isSuperuser
/** A signed-in reader's listing that only the policy narrows: the prepared statements below. */
const isSignedInReader = (reader: Reader) => reader.userId !== null && !reader.isSuperuser
const narrowed = (filter: PostFilter) => filter.search !== undefined || filter.tag !== undefined || filter.expression !== undefined || filter.orgId !== undefined || filter.visibility !== undefined || filter.status !== undefined
/** Every post the reader may list, in no narrower set (no filter, no author): its total is kept, not counted. */
const unnarrowed = (filter: PostFilter) => !narrowed(filter) && filter.authorId === undefined

/** The kept count of an organization grant's posts in the reader's organizations (org_post_counts, by trigger). */
function keptOrgCount(db: Executor, grant: ReadGrant, orgs: unknown) {
  return db
    .selectFrom('org_post_counts')
    .select(sql<number | string>`coalesce(sum(count), 0)`.as('count'))
    .where(inIdList(db, 'org_post_counts.org_id', orgs))
    .$if(grant.visibility.length < VISIBILITIES.length, (qb) => qb.where('org_post_counts.visibility', 'in', grant.visibility))
    .$if(grant.status.length < POST_STATUSES.length, (qb) => qb.where('org_post_counts.status', 'in', grant.status))
}

/** A trigger-kept total of live rows (row_counts), as a value. */
const keptTotal = (db: Executor, name: 'posts' | 'listed_posts') =>
  sql<number | string>`(${db.selectFrom('row_counts').select(sql`coalesce(sum(count), 0)`.as('count')).where('row_counts.name', '=', name)})`

/**
 * Every signed-in reader's unnarrowed total, as a value: the public and published posts (the
 * trigger-kept `listed_posts`), plus what each organization grant opens in the reader's
 * organizations (kept per organization, visibility and status in `org_post_counts`), plus the
 * reader's own posts that no other grant opens (counted through their own index). The grants
 * other than the author's are disjoint (checked above), so the parts add up.
 */
function readerTotal(db: Executor, reader: ReaderArguments) {
  const grants = grantsFor(true)
  const others = grants.filter((grant) => grant.audience !== 'author')
  const own = db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('posts.is_deleted', '=', 0)
    .where((eb) => grantCondition(eb, db, grants.find((grant) => grant.audience === 'author')!, reader))
    // coalesce: a post of no organization makes `org_id in (...)` null, and `not null` is not true.
    .where((eb) => eb.not(sql<SqlBool>`coalesce(${anyOf(eb, db, others, reader)}, false)`))
  const parts = [
    keptTotal(db, 'listed_posts'),
    ...others.filter((grant) => grant.audience !== 'anyone').map((grant) => sql`(${keptOrgCount(db, grant, grant.audience === 'org_admin' ? reader.adminOrgs : reader.memberOrgs)})`),
    sql`(${own})`,
  ]
  return sql<number | string>`${sql.join(parts, sql` + `)} - ${blockedAuthorsCount(db, reader.userId, (eb) => anyOf(eb, db, grants, reader))}`
}

/**
 * The live posts of the authors the reader blocked that the reader's grants open (`listed`), as a
 * value: what an unnarrowed total, kept for everyone, leaves out for them. Read through the blocked
 * authors' own index entries; nothing for a reader who blocked nobody.
 */
function blockedAuthorsCount(db: Executor, userId: unknown, listed: (eb: PostsExpressions) => Expression<SqlBool>) {
  const counted = db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('posts.author_id', 'in', blockedByReader(userId))
    .where('posts.is_deleted', '=', 0)
    .where(listed)
  // Asked first, and answered from the blocks' primary key: a reader who blocked nobody (nearly
  // everyone) never has the count's organization lists built.
  return sql<number | string>`(case when exists (select 1 from user_blocks where user_blocks.blocker_id = ${userId}) then (${counted}) else 0 end)`
}

/** How many posts the reader may list with the filter, as a value: kept counts where the list is unnarrowed, a count of the rows otherwise. */
function totalOf(db: Executor, reader: Reader, filter: PostFilter) {
  if (unnarrowed(filter)) {
    if (reader.isSuperuser) return sql<number | string>`${keptTotal(db, 'posts')} - ${blockedAuthorsCount(db, reader.userId, () => sql<SqlBool>`1 = 1`)}`
    if (reader.userId === null) return keptTotal(db, 'listed_posts')
    return readerTotal(db, readerArguments(db, reader))
  }
  return sql<number | string>`(${filteredPosts(db, reader, filter).select((eb) => eb.fn.countAll<number | string>().as('count'))})`
}

/** Every signed-in reader's unnarrowed page from `offset`, newest first: one statement for all of them. */
export function readerPageQuery(db: Executor, userId: number, memberOrgs: unknown, adminOrgs: unknown, offset: number, limit: number) {
  return visiblePosts(db)
    .select(POST_COLUMNS)
    .where((eb) => anyOf(eb, db, grantsFor(true), { userId, memberOrgs, adminOrgs }))
    .where(() => notBlockedBy(userId))
    .orderBy('posts.id', 'desc')
    .limit(limit)
    .offset(offset)
}

/** As readerPageQuery, the page below the key `before` (keyset paging). */
export function readerPageBeforeQuery(db: Executor, userId: number, memberOrgs: unknown, adminOrgs: unknown, before: number, limit: number) {
  return visiblePosts(db)
    .select(POST_COLUMNS)
    .where((eb) => anyOf(eb, db, grantsFor(true), { userId, memberOrgs, adminOrgs }))
    .where(() => notBlockedBy(userId))
    .where('posts.id', '<', before)
    .orderBy('posts.id', 'desc')
    .limit(limit)
}

/** A signed-in reader's unnarrowed total alone (a page that came back empty). */
export function readerTotalQuery(db: Executor, userId: number, memberOrgs: unknown, adminOrgs: unknown) {
  return db.selectNoFrom(readerTotal(db, { userId, memberOrgs, adminOrgs }).as('total'))
}

// Version 2's pages carry their total in a column of each row: one statement for the page and
// its total (an empty page asks for the total apart).
const withTotal = <Arguments extends unknown[]>(page: (db: Executor, ...args: Arguments) => ReturnType<typeof readerPageQuery>, total: (db: Executor, ...args: Arguments) => ReturnType<typeof keptTotal>) =>
  (db: Executor, ...args: Arguments) => page(db, ...args).select(total(db, ...args).as('total'))

export const preparedReaderPage = preparedQuery(5, readerPageQuery)
export const preparedReaderPageBefore = preparedQuery(5, readerPageBeforeQuery)
export const preparedReaderTotal = preparedQuery(3, readerTotalQuery, { singleRow: true })
export const preparedReaderPageWithTotal = preparedQuery(
  5,
  withTotal(readerPageQuery, (db, userId, memberOrgs, adminOrgs) => readerTotal(db, { userId, memberOrgs, adminOrgs })),
)
export const preparedReaderPageBeforeWithTotal = preparedQuery(
  5,
  withTotal(readerPageBeforeQuery, (db, userId, memberOrgs, adminOrgs) => readerTotal(db, { userId, memberOrgs, adminOrgs })),
)
export const preparedNewestPostsWithTotal = preparedQuery(
  2,
  withTotal(newestPostsQuery, (db) => keptTotal(db, 'listed_posts')),
)
export const preparedFirstPostsWithTotal = preparedQuery(
  1,
  withTotal(firstPostsQuery, (db) => keptTotal(db, 'listed_posts')),
)
export const preparedNewestPostsBeforeWithTotal = preparedQuery(
  2,
  withTotal(newestPostsBeforeQuery, (db) => keptTotal(db, 'listed_posts')),
)

/**
 * Newest first. The listings anyone sees without a text search, and every signed-in reader's
 * unnarrowed one, are the common ones, and prepared. A window with `after` starts below that id
 * (keyset paging: newest first), else at its offset.
 */
/**
 * Runs a query of a list that `search=` narrows: a case-insensitive substring of every title and
 * text the reader may list, which no index serves. On SQLite it runs on the read worker's own
 * connection (src/db/read-worker.ts), so one such scan of a million posts does not hold every
 * other request on the event loop; anything else runs where it is.
 */
function runScanning<R>(db: Executor, filter: PostFilter, query: Parameters<typeof readOffLoop<R>>[1]): Promise<R[]> {
  return filter.search === undefined ? query.execute() : readOffLoop(db, query)
}

export function listPosts(db: Executor, reader: Reader, filter: PostFilter, window: RowWindow): Promise<PostRow[]> {
  const { offset, limit, after } = window
  if (isSignedInReader(reader) && unnarrowed(filter)) {
    const { userId, memberOrgs, adminOrgs } = readerArguments(db, reader)
    return after === undefined ? preparedReaderPage(db, userId as number, memberOrgs, adminOrgs, offset, limit) : preparedReaderPageBefore(db, userId as number, memberOrgs, adminOrgs, after, limit)
  }
  if (!isAnonymous(reader) || narrowed(filter) || (after !== undefined && filter.authorId !== undefined)) return runScanning(db, filter, postPageQuery(db, reader, filter, window))
  if (after !== undefined) return preparedNewestPostsBefore(db, after, limit)
  if (filter.authorId !== undefined) return preparedNewestPostsBy(db, filter.authorId, offset, limit)
  return offset === 0 ? preparedFirstPosts(db, limit) : preparedNewestPosts(db, offset, limit)
}

/** A page and how many posts the reader may list in all, in one statement; the total is undefined when the page is empty (countPosts then). */
export async function listPostsWithTotal(db: Executor, reader: Reader, filter: PostFilter, window: RowWindow): Promise<{ rows: PostRow[]; total: number | undefined }> {
  const { offset, limit, after } = window
  let rows: (PostRow & { total: number | string | null })[]
  if (unnarrowed(filter) && isSignedInReader(reader)) {
    const { userId, memberOrgs, adminOrgs } = readerArguments(db, reader)
    rows = after === undefined ? await preparedReaderPageWithTotal(db, userId as number, memberOrgs, adminOrgs, offset, limit) : await preparedReaderPageBeforeWithTotal(db, userId as number, memberOrgs, adminOrgs, after, limit)
  } else if (unnarrowed(filter) && isAnonymous(reader)) {
    if (after !== undefined) rows = await preparedNewestPostsBeforeWithTotal(db, after, limit)
    else rows = offset === 0 ? await preparedFirstPostsWithTotal(db, limit) : await preparedNewestPostsWithTotal(db, offset, limit)
  } else {
    rows = await runScanning(db, filter, postPageQuery(db, reader, filter, window).select(totalOf(db, reader, filter).as('total')))
  }
  return { rows, total: rows.length === 0 ? undefined : Number(rows[0]!.total ?? 0) }
}

/** How many posts the reader may list: kept counts where the list is unnarrowed (totalOf), a count of the rows otherwise. */
export async function countPosts(db: Executor, reader: Reader, filter: PostFilter): Promise<number> {
  if (isSignedInReader(reader) && unnarrowed(filter)) {
    const { userId, memberOrgs, adminOrgs } = readerArguments(db, reader)
    const [row] = await preparedReaderTotal(db, userId as number, memberOrgs, adminOrgs)
    return Number(row?.total ?? 0)
  }
  // A superuser's total leaves out the authors they blocked (totalOf).
  if (unnarrowed(filter) && !reader.isSuperuser) return liveRowCount(db, 'listed_posts')
  const [row] = await runScanning(db, filter, db.selectNoFrom(totalOf(db, reader, filter).as('total')))
  return Number(row?.total ?? 0)
}

/**
 * Whether a sorted list an index narrows is better sorted from what that index finds when it is
 * small (listPostsSorted): PostgreSQL's planner walks the sort key's index instead. SQLite's
 * planner already picks the narrowing index (and is told to walk only where nothing narrows).
 */
export function sortsNarrowedLists(db: Executor): boolean {
  return isPostgres(db)
}

/** How many posts the reader may list in a narrowed list, counting no further than `atMost`: a few, or "more than that" at the cost of `atMost`. */
export async function countPostsUpTo(db: Executor, reader: Reader, filter: PostFilter, atMost: number): Promise<number> {
  const found = filteredPosts(db, reader, filter).select('posts.id').limit(atMost)
  const [row] = await runScanning(db, filter, db.selectFrom(found.as('found')).select((eb) => eb.fn.countAll<number | string>().as('count')))
  return Number(row?.count ?? 0)
}

/** Inserts the post while its author is live; undefined when the author is not. */
export async function insertPost(db: Executor, post: NewPostRow): Promise<PostRow | undefined> {
  const now = nowIso()
  const [row] = await preparedInsertLivePost(db, post.author_id, post.title, post.text, post.media_url, post.visibility, post.status, post.org_id, post.comments, post.status === 'published' ? now : null, now, post.slug, post.slug_scope, post.format, post.html, post.fields, post.language, post.tags)
  return row
}

/**
 * Holds a slug scope until the unit ends (PostgreSQL, by a transaction's advisory lock; SQLite runs
 * one writer at a time), so two posts given slugs in one scope at once never pick the same one.
 */
export async function lockSlugScope(db: Executor, scope: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_advisory_xact_lock(hashtext(${`post-slug ${scope}`}))`.execute(db)
}

/** Which of these slugs posts of the scope have, the post `except` aside: exact probes of the unique index. */
export async function takenSlugs(db: Executor, scope: string, slugs: readonly string[], except: number | null): Promise<string[]> {
  const rows = await db
    .selectFrom('posts')
    .select('slug')
    .where('slug_scope', '=', scope)
    .where('slug', 'in', [...slugs])
    .$if(except !== null, (qb) => qb.where('id', '<>', except ?? 0))
    .execute()
  return rows.map((row) => row.slug)
}

/** The slug scopes an owner's name opens: the organization with that slug, the user with that username. */
export async function slugScopesOf(db: Executor, owner: string): Promise<string[]> {
  const name = owner.toLowerCase()
  const [org, user] = await Promise.all([
    db.selectFrom('organizations').select('id').where('slug', '=', name).executeTakeFirst(),
    db.selectFrom('users').select('id').where('username', '=', name).where('is_deleted', '=', 0).executeTakeFirst(),
  ])
  return [...(org ? [`o:${org.id}`] : []), ...(user ? [`u:${user.id}`] : [])]
}

/** The live posts with the slug in these scopes. */
export function postsWithSlug(db: Executor, scopes: readonly string[], slug: string): Promise<PostRow[]> {
  if (scopes.length === 0) return Promise.resolve([])
  return visiblePosts(db).select(POST_COLUMNS).where('posts.slug_scope', 'in', [...scopes]).where('posts.slug', '=', slug).execute()
}

/** The posts these scopes' old slug `slug` now stands for. */
export async function redirectedSlug(db: Executor, scopes: readonly string[], slug: string): Promise<{ slug_scope: string; post_id: number }[]> {
  if (scopes.length === 0) return []
  return db.selectFrom('post_slug_redirects').select(['slug_scope', 'post_id']).where('slug_scope', 'in', [...scopes]).where('slug', '=', slug).execute()
}

/** The scope the post's slug was given in (kept when its organization goes, unlike org_id). */
export async function slugScopeOfPost(db: Executor, id: number): Promise<string | undefined> {
  return (await db.selectFrom('posts').select('slug_scope').where('id', '=', id).executeTakeFirst())?.slug_scope
}

/** Keeps a post's earlier slug finding it (the latest post to leave a slug takes it). */
export async function recordOldSlug(db: Executor, scope: string, slug: string, postId: number): Promise<void> {
  await db.deleteFrom('post_slug_redirects').where('slug_scope', '=', scope).where('slug', '=', slug).execute()
  await db.insertInto('post_slug_redirects').values({ slug_scope: scope, slug, post_id: postId, created_at: nowIso() }).execute()
}

/** Brings back the author's posts soft-deleted at or after `since` (with the author), not those deleted before. */
export async function unhidePostsOf(db: Executor, authorId: number, since: string): Promise<void> {
  await db
    .updateTable('posts')
    .set({ is_deleted: 0, deleted_at: null, updated_at: nowIso() })
    .where('author_id', '=', authorId)
    .where('is_deleted', '=', 1)
    .where('deleted_at', '>=', since)
    .execute()
}

/** Soft-deletes every visible post of an author (when the author is soft-deleted). */
export async function hidePostsOf(db: Executor, authorId: number): Promise<void> {
  const now = nowIso()
  await db
    .updateTable('posts')
    .set({ is_deleted: 1, deleted_at: now, updated_at: now })
    .where('author_id', '=', authorId)
    .where('is_deleted', '=', 0)
    .execute()
}

export function updatePost(db: Executor, id: number, changes: PostRowChanges): Promise<PostRow | undefined> {
  return db
    .updateTable('posts')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .returning(POST_COLUMNS)
    .executeTakeFirst()
}

export function softDeletePost(db: Executor, id: number): Promise<boolean> {
  return softDeleteRow(db, 'posts', id)
}

/** Removes the row whether soft-deleted or not; the row as it was, or undefined when there was none. */
export function deletePostPermanently(db: Executor, id: number): Promise<PostRow | undefined> {
  return db.deleteFrom('posts').where('id', '=', id).returning(POST_COLUMNS).executeTakeFirst()
}

/** The live posts among `ids`, whole. */
export function findLivePosts(db: Executor, ids: readonly number[]): Promise<PostRow[]> {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', 'in', [...ids]).orderBy('posts.id').execute()
}

/** The live posts among `ids` (not deleted, nor hidden with their author), with what the policy looks at. */
export function findLivePostFacts(db: Executor, ids: readonly number[]) {
  return db.selectFrom('posts').select(['id', 'author_id', 'visibility', 'status', 'org_id']).where('id', 'in', [...ids]).where('is_deleted', '=', 0).execute()
}

/**
 * The published posts of `fromAuthorId` that others may read (public, unlisted or an
 * organization's; not deleted) become `toAuthorId`'s. Drafts, private and deleted posts stay
 * theirs, and go with them.
 */
export async function handOverPublishedPostsOf(db: Executor, fromAuthorId: number, toAuthorId: number): Promise<void> {
  await db
    .updateTable('posts')
    .set({ author_id: toAuthorId })
    .where('author_id', '=', fromAuthorId)
    .where('is_deleted', '=', 0)
    .where('status', '=', 'published')
    .where('visibility', '<>', 'private')
    .execute()
}

/** An author's posts in every state (drafts, private, deleted), oldest first, after the id `after`: their data export's pages. */
export function postsOfAuthorAfter(db: Executor, authorId: number, after: number, limit: number) {
  return db.selectFrom('posts').select([...POST_COLUMNS, 'deleted_at', 'trashed_until']).where('author_id', '=', authorId).where('id', '>', after).orderBy('id').limit(limit).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
/** The post's tags from now on: one row each (`?tag=`, GET /tags), in the post's transaction. */
export async function replacePostTags(db: Executor, postId: number, tags: readonly string[]): Promise<void> {
  await db.deleteFrom('post_tags').where('post_id', '=', postId).execute()
  if (tags.length > 0) await db.insertInto('post_tags').values(tags.map((tag) => ({ post_id: postId, tag }))).execute()
}

/** The tags of the most posts the reader may list (the policy, blocks included), with how many each. */
export async function popularTags(db: Executor, reader: Reader, limit: number): Promise<{ tag: string; count: number }[]> {
  const rows = await filteredPosts(db, reader, {})
    .innerJoin('post_tags', 'post_tags.post_id', 'posts.id')
    .select((eb) => ['post_tags.tag', eb.fn.countAll<number | string>().as('count')])
    .groupBy('post_tags.tag')
    .orderBy('count', 'desc')
    .orderBy('post_tags.tag')
    .limit(limit)
    .execute()
  return rows.map((row) => ({ tag: row.tag, count: Number(row.count) }))
}

export const postsFunctions = { replacePostTags, popularTags, findLivePosts, postsOfAuthorAfter, findPostById, findPostForChange, listPosts, listPostsSorted, sortWalksIndex, listPostsWithTotal, countPosts, countPostsUpTo, sortsNarrowedLists, insertPost, lockSlugScope, takenSlugs, slugScopesOf, postsWithSlug, redirectedSlug, recordOldSlug, slugScopeOfPost, unhidePostsOf, hidePostsOf, updatePost, softDeletePost, deletePostPermanently, handOverPublishedPostsOf, findLivePostFacts }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const postsReadTargets: ReadTargets<typeof postsFunctions> = {
  replacePostTags: 'write',
  popularTags: 'replica',
  findLivePosts: 'replica',
  postsOfAuthorAfter: 'primary',
  findPostById: 'replica',
  findPostForChange: 'write',
  listPosts: 'replica',
  listPostsSorted: 'replica',
  sortWalksIndex: 'primary',
  listPostsWithTotal: 'replica',
  countPosts: 'replica',
  countPostsUpTo: 'replica',
  sortsNarrowedLists: 'primary',
  insertPost: 'write',
  lockSlugScope: 'write',
  takenSlugs: 'primary',
  slugScopesOf: 'primary',
  postsWithSlug: 'replica',
  redirectedSlug: 'replica',
  recordOldSlug: 'write',
  slugScopeOfPost: 'primary',
  unhidePostsOf: 'write',
  hidePostsOf: 'write',
  updatePost: 'write',
  softDeletePost: 'write',
  deletePostPermanently: 'write',
  handOverPublishedPostsOf: 'write',
  findLivePostFacts: 'primary',
}

export type PostsRepository = Repository<typeof postsFunctions>
