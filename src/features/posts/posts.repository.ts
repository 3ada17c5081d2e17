// The posts feature's SQL, the only place it lives. Every function takes the executor (db or a
// transaction) first and returns rows of the posts table (PostRow); the service turns them into
// Posts. A post is visible while it is not soft-deleted; soft-deleting a user soft-deletes their
// posts too, so no read joins the author.
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PostFilter } from './post.js'
import type { PostRow } from './posts.table.js'
import { POST_COLUMNS } from './posts.table.js'

// Query builders: built here, run below (the hot ones through their prepared twins).
export function visiblePosts(db: Executor) {
  return db.selectFrom('posts').where('posts.is_deleted', '=', 0)
}

export function postByIdQuery(db: Executor, id: number) {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id)
}

/** Visible posts narrowed by author and by `search` over title or text (case-insensitive). */
export function filteredPosts(db: Executor, filter: PostFilter) {
  const pattern = filter.search === undefined ? undefined : likeContains(filter.search)
  return visiblePosts(db)
    .$if(filter.authorId !== undefined, (qb) => qb.where('posts.author_id', '=', filter.authorId ?? 0))
    .$if(pattern !== undefined, (qb) =>
      qb.where(sql<boolean>`(lower(posts.title) like ${pattern} escape '\\' or lower(posts.text) like ${pattern} escape '\\')`),
    )
}

// As for users: the page's ids from the (is_deleted, id) index, then only those rows.
export function newestPostsQuery(db: Executor, offset: number, limit: number) {
  return visiblePosts(db)
    .select(POST_COLUMNS)
    .where('posts.id', 'in', (eb) =>
      eb.selectFrom('posts').select('posts.id').where('posts.is_deleted', '=', 0).orderBy('posts.id', 'desc').limit(limit).offset(offset),
    )
    .orderBy('posts.id', 'desc')
}

/** Keyset paging: the visible posts older than `before` (lower ids), newest first, at any depth. */
export function newestPostsBeforeQuery(db: Executor, before: number, limit: number) {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.id', '<', before).orderBy('posts.id', 'desc').limit(limit)
}

export function newestPostsByQuery(db: Executor, authorId: number, offset: number, limit: number) {
  return visiblePosts(db).select(POST_COLUMNS).where('posts.author_id', '=', authorId).orderBy('posts.id', 'desc').limit(limit).offset(offset)
}

/**
 * Inserts the post only while its author is live, in one statement. In PostgreSQL the author's
 * row is share-locked, so a concurrent soft delete of the author either waits for this insert
 * (and then hides the new post with the others) or wins and this inserts nothing. SQLite runs
 * one writer at a time, which gives the same guarantee.
 */
export function insertLivePostQuery(db: Executor, authorId: number, title: string, text: string, mediaUrl: string | null, now: string) {
  return db
    .insertInto('posts')
    .columns(['author_id', 'title', 'text', 'media_url', 'created_at', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          'users.id',
          eb.val(title).as('title'),
          eb.val(text).as('text'),
          eb.val(mediaUrl).as('media_url'),
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
export const preparedInsertLivePost = preparedQuery(5, insertLivePostQuery)

export interface NewPostRow {
  author_id: number
  title: string
  text: string
  media_url: string | null
}

export interface PostRowChanges {
  title?: string
  text?: string
  media_url?: string | null
}

export async function findPostById(db: Executor, id: number): Promise<PostRow | undefined> {
  const [row] = await preparedPostById(db, id)
  return row
}

/**
 * Newest first. The listings without a text search are the common ones, and prepared. A window
 * with `after` starts below that id (keyset paging: newest first), else at its offset.
 */
export function listPosts(db: Executor, filter: PostFilter, { offset, limit, after }: RowWindow): Promise<PostRow[]> {
  if (filter.search !== undefined || (after !== undefined && filter.authorId !== undefined)) {
    return filteredPosts(db, filter)
      .select(POST_COLUMNS)
      .$if(after !== undefined, (qb) => qb.where('posts.id', '<', after ?? 0))
      .orderBy('posts.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
  }
  if (after !== undefined) return preparedNewestPostsBefore(db, after, limit)
  if (filter.authorId !== undefined) return preparedNewestPostsBy(db, filter.authorId, offset, limit)
  return preparedNewestPosts(db, offset, limit)
}

export async function countPosts(db: Executor, filter: PostFilter): Promise<number> {
  if (filter.search === undefined && filter.authorId === undefined) return liveRowCount(db, 'posts')
  const { count } = await filteredPosts(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** Inserts the post while its author is live; undefined when the author is not. */
export async function insertPost(db: Executor, post: NewPostRow): Promise<PostRow | undefined> {
  const [row] = await preparedInsertLivePost(db, post.author_id, post.title, post.text, post.media_url, nowIso())
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

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const postsFunctions = { findPostById, listPosts, countPosts, insertPost, unhidePostsOf, hidePostsOf, updatePost, softDeletePost, deletePostPermanently }
export type PostsRepository = Repository<typeof postsFunctions>
