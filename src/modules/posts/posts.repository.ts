// Runs the posts module's SQL. Every function takes the executor (db or a transaction) first and
// returns rows of the posts table (PostRow); the service turns them into Posts.
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import { softDeleteRow } from '../../db/soft-delete.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PostFilter } from './post.js'
import { preparedInsertLivePost, preparedNewestPosts, preparedNewestPostsBefore, preparedNewestPostsBy, preparedPostById } from './posts.prepared.js'
import { POST_COLUMNS, filteredPosts } from './posts.queries.js'
import type { PostRow } from './posts.queries.js'

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

/** Newest first. The listings without a text search are the common ones, and prepared. */
// A window with `after` starts below that id (keyset paging: newest first), else at its offset.
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

/** Removes the row whether soft-deleted or not. */
export async function deletePostPermanently(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('posts').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}
