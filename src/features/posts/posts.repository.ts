// The posts feature's SQL, the only place it lives. Every function takes the executor (db or a
// transaction) first and returns rows of the posts table (PostRow); the service turns them into
// Posts. A post is visible while it is not soft-deleted; soft-deleting a user soft-deletes their
// posts too, so no read joins the author. Every listing, search, page and count is narrowed by
// `listedBy`, the post policy's grants compiled to SQL (post-policy.ts): nothing is filtered
// after the query.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Database, Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PostFilter } from './post.js'
import type { Audience, Reader } from './post-policy.js'
import { ANONYMOUS, orgsOf, POST_STATUSES, READ_GRANTS, VISIBILITIES } from './post-policy.js'
import type { PostRow } from './posts.table.js'
import { POST_COLUMNS } from './posts.table.js'

type PostsExpressions = ExpressionBuilder<Database, 'posts'>

/** One grant's audience as conditions; undefined when the reader is in no such audience (no user, no such organizations). */
function audienceConditions(eb: PostsExpressions, reader: Reader, audience: Audience): Expression<SqlBool>[] | undefined {
  if (audience === 'anyone') return []
  if (audience === 'author') return reader.userId === null ? undefined : [eb('posts.author_id', '=', reader.userId)]
  const orgIds = orgsOf(reader, audience)
  return orgIds.length === 0 ? undefined : [eb('posts.org_id', 'in', orgIds)]
}

/** `column` is one of `values`, or no condition when they are all there are. */
function oneOf(eb: PostsExpressions, column: 'posts.visibility' | 'posts.status', values: readonly string[], all: readonly string[]): Expression<SqlBool>[] {
  if (values.length === all.length) return []
  return [values.length === 1 ? eb(column, '=', values[0] as string) : eb(column, 'in', values)]
}

/**
 * The posts the reader may see in a list, search, page or count: the policy's listed grants, OR-ed
 * (post-policy.ts READ_GRANTS). Superusers see every live post; anyone else, the public and
 * published posts (served by posts_listed_id_idx) and those their grants open.
 */
export function listedBy(reader: Reader) {
  return (eb: PostsExpressions): Expression<SqlBool> => {
    if (reader.isSuperuser) return sql<SqlBool>`1 = 1`
    const branches = listedBranches(eb, reader)
    return branches.length === 1 ? (branches[0] as Expression<SqlBool>) : eb.or(branches)
  }
}

/** The listed grants, anyone's (public and published, the trigger-counted ones) first. */
const LISTED_GRANTS = READ_GRANTS.filter((grant) => grant.listed).sort((a, b) => Number(a.audience !== 'anyone') - Number(b.audience !== 'anyone'))

/** Each listed grant that opens anything to the reader, as its conditions, anyone's first. */
function listedBranches(eb: PostsExpressions, reader: Reader): Expression<SqlBool>[] {
  return LISTED_GRANTS.flatMap((grant) => {
    const audience = audienceConditions(eb, reader, grant.audience)
    if (audience === undefined) return []
    return [eb.and([...audience, ...oneOf(eb, 'posts.visibility', grant.visibility, VISIBILITIES), ...oneOf(eb, 'posts.status', grant.status, POST_STATUSES)])]
  })
}

const listedByAnyone = listedBy(ANONYMOUS)

// Query builders: built here, run below (the hot ones through their prepared twins).
export function visiblePosts(db: Executor) {
  return db.selectFrom('posts').where('posts.is_deleted', '=', 0)
}

/** The live posts anyone may list: public and published. */
export function listedPosts(db: Executor) {
  return visiblePosts(db).where(listedByAnyone)
}

export function postByIdQuery(db: Executor, id: number) {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id)
}

/** The posts the reader may list, narrowed by author, organization, visibility, status and `search` over title or text (case-insensitive). */
export function filteredPosts(db: Executor, reader: Reader, filter: PostFilter) {
  const pattern = filter.search === undefined ? undefined : likeContains(filter.search)
  return visiblePosts(db)
    .where(listedBy(reader))
    .$if(filter.authorId !== undefined, (qb) => qb.where('posts.author_id', '=', filter.authorId ?? 0))
    .$if(filter.orgId !== undefined, (qb) => qb.where('posts.org_id', '=', filter.orgId ?? 0))
    .$if(filter.visibility !== undefined, (qb) => qb.where('posts.visibility', '=', filter.visibility ?? 'public'))
    .$if(filter.status !== undefined, (qb) => qb.where('posts.status', '=', filter.status ?? 'published'))
    .$if(pattern !== undefined, (qb) =>
      qb.where(sql<boolean>`(lower(posts.title) like ${pattern} escape '\\' or lower(posts.text) like ${pattern} escape '\\')`),
    )
}

// The listings anyone sees, prepared below. As for users: the page's ids from the
// (is_deleted, visibility, status, id) index, then only those rows.
export function newestPostsQuery(db: Executor, offset: number, limit: number) {
  return visiblePosts(db)
    .select(POST_COLUMNS)
    .where('posts.id', 'in', (eb) =>
      eb.selectFrom('posts').select('posts.id').where('posts.is_deleted', '=', 0).where(listedByAnyone).orderBy('posts.id', 'desc').limit(limit).offset(offset),
    )
    .orderBy('posts.id', 'desc')
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
  publishedAt: string | null,
  now: string,
) {
  return db
    .insertInto('posts')
    .columns(['author_id', 'title', 'text', 'media_url', 'visibility', 'status', 'org_id', 'published_at', 'created_at', 'updated_at'])
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
          eb.val(publishedAt).as('published_at'),
          eb.val(now).as('created_at'),
          eb.val(now).as('updated_at'),
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
export const preparedNewestPostsBefore = preparedQuery(2, newestPostsBeforeQuery)
export const preparedNewestPostsBy = preparedQuery(3, newestPostsByQuery)
export const preparedInsertLivePost = preparedQuery(9, insertLivePostQuery)

export interface NewPostRow {
  author_id: number
  title: string
  text: string
  media_url: string | null
  visibility: string
  status: string
  org_id: number | null
}

export interface PostRowChanges {
  title?: string
  text?: string
  media_url?: string | null
  visibility?: string
  status?: string
  org_id?: number | null
  published_at?: string
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

/** The live post, held until the unit ends in PostgreSQL (SQLite runs one writer at a time): a change decides on the post as it is. */
export function findPostForChange(db: Executor, id: number): Promise<PostRow | undefined> {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id).$if(isPostgres(db), (qb) => qb.forUpdate()).executeTakeFirst()
}

const isAnonymous = (reader: Reader) => reader.userId === null && !reader.isSuperuser
const narrowed = (filter: PostFilter) => filter.search !== undefined || filter.orgId !== undefined || filter.visibility !== undefined || filter.status !== undefined

/**
 * Newest first. The listings anyone sees without a text search are the common ones, and
 * prepared. A window with `after` starts below that id (keyset paging: newest first), else at its offset.
 */
export function listPosts(db: Executor, reader: Reader, filter: PostFilter, window: RowWindow): Promise<PostRow[]> {
  const { offset, limit, after } = window
  if (!isAnonymous(reader) || narrowed(filter) || (after !== undefined && filter.authorId !== undefined)) return postPageQuery(db, reader, filter, window).execute()
  if (after !== undefined) return preparedNewestPostsBefore(db, after, limit)
  if (filter.authorId !== undefined) return preparedNewestPostsBy(db, filter.authorId, offset, limit)
  return preparedNewestPosts(db, offset, limit)
}

/**
 * How many posts the reader may list. Unnarrowed, the totals come from the trigger-kept counts
 * (every live post for a superuser, the public and published ones for anyone), and a signed-in
 * reader adds what each of their other grants opens, counted apart so that each count rides the
 * index of its own grant (the author's posts, an organization's) instead of the whole table;
 * each excludes what the grants before it counted already.
 */
export async function countPosts(db: Executor, reader: Reader, filter: PostFilter): Promise<number> {
  if (!narrowed(filter) && filter.authorId === undefined) {
    if (reader.isSuperuser) return liveRowCount(db, 'posts')
    const listed = await liveRowCount(db, 'listed_posts')
    if (reader.userId === null) return listed
    const row = await beyondPublicCountQuery(db, reader).executeTakeFirstOrThrow()
    return Object.values(row as Record<string, number | string | null>).reduce<number>((sum, count) => sum + Number(count ?? 0), listed)
  }
  const { count } = await filteredPosts(db, reader, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** What each of the reader's grants beyond anyone's opens, one column each, none counted twice. */
export function beyondPublicCountQuery(db: Executor, reader: Reader) {
  return db.selectNoFrom((eb) => {
    const branches = listedBranches(eb as unknown as PostsExpressions, reader)
    return branches.slice(1).map((branch, index) =>
      eb
        .selectFrom('posts')
        .select((inner) => inner.fn.countAll<number | string>().as('count'))
        .where('posts.is_deleted', '=', 0)
        .where(branch)
        .where((inner) => inner.not(inner.or(branches.slice(0, index + 1))))
        .as(`grant${index}`),
    )
  })
}

/** Inserts the post while its author is live; undefined when the author is not. */
export async function insertPost(db: Executor, post: NewPostRow): Promise<PostRow | undefined> {
  const now = nowIso()
  const [row] = await preparedInsertLivePost(db, post.author_id, post.title, post.text, post.media_url, post.visibility, post.status, post.org_id, post.status === 'published' ? now : null, now)
  return row
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
  return db.selectFrom('posts').select([...POST_COLUMNS, 'deleted_at']).where('author_id', '=', authorId).where('id', '>', after).orderBy('id').limit(limit).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const postsFunctions = { postsOfAuthorAfter, findPostById, findPostForChange, listPosts, countPosts, insertPost, unhidePostsOf, hidePostsOf, updatePost, softDeletePost, deletePostPermanently, handOverPublishedPostsOf, findLivePostFacts }
export type PostsRepository = Repository<typeof postsFunctions>
