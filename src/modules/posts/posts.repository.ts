// The only place post SQL lives. A post is visible while neither it nor its author is soft-deleted.
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { nowIso, toIsoString } from '../../shared/time.js'
import { likeContains } from '../../shared/like.js'

export interface PostRecord {
  id: number
  title: string
  text: string
  media_url: string | null
  author_id: number
  created_at: string
  updated_at: string
}

export interface NewPost {
  author_id: number
  title: string
  text: string
  media_url: string | null
}

export interface PostChanges {
  title?: string
  text?: string
  media_url?: string | null
}

export interface PostFilter {
  search?: string
  authorId?: number
}

/** Columns of PostRead, for statements on the posts table alone (insert/update ... returning). */
const RETURNED_COLUMNS = ['id', 'title', 'text', 'media_url', 'author_id', 'created_at', 'updated_at'] as const
/** The same, qualified, for selects that join the author. */
const POST_COLUMNS = RETURNED_COLUMNS.map((column) => `posts.${column}` as const)

interface PostRow {
  id: number
  title: string
  text: string
  media_url: string | null
  author_id: number
  created_at: Date | string
  updated_at: Date | string
}

function toPostRecord(row: PostRow): PostRecord {
  return {
    id: row.id,
    title: row.title,
    text: row.text,
    media_url: row.media_url,
    author_id: row.author_id,
    created_at: toIsoString(row.created_at),
    updated_at: toIsoString(row.updated_at),
  }
}

function visiblePosts(db: Executor) {
  return db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.author_id')
    .where('posts.is_deleted', '=', 0)
    .where('users.is_deleted', '=', 0)
}

export async function findPostById(db: Executor, id: number): Promise<PostRecord | undefined> {
  const row = await visiblePosts(db).select(POST_COLUMNS).where('posts.id', '=', id).executeTakeFirst()
  return row && toPostRecord(row)
}

/** Visible posts narrowed by author and by `search` over title or text (case-insensitive). */
function filteredPosts(db: Executor, filter: PostFilter) {
  const pattern = filter.search === undefined ? undefined : likeContains(filter.search)
  return visiblePosts(db)
    .$if(filter.authorId !== undefined, (qb) => qb.where('posts.author_id', '=', filter.authorId ?? 0))
    .$if(pattern !== undefined, (qb) =>
      qb.where(sql<boolean>`(lower(posts.title) like ${pattern} escape '\\' or lower(posts.text) like ${pattern} escape '\\')`),
    )
}

/** Newest first. */
export async function listPosts(db: Executor, filter: PostFilter, offset: number, limit: number): Promise<PostRecord[]> {
  const rows = await filteredPosts(db, filter).select(POST_COLUMNS).orderBy('posts.id', 'desc').limit(limit).offset(offset).execute()
  return rows.map(toPostRecord)
}

export async function countPosts(db: Executor, filter: PostFilter): Promise<number> {
  const { count } = await filteredPosts(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function insertPost(db: Executor, post: NewPost): Promise<PostRecord> {
  const now = nowIso()
  const row = await db
    .insertInto('posts')
    .values({ ...post, created_at: now, updated_at: now })
    .returning(RETURNED_COLUMNS)
    .executeTakeFirstOrThrow()
  return toPostRecord(row)
}

export async function updatePost(db: Executor, id: number, changes: PostChanges): Promise<PostRecord | undefined> {
  const row = await db
    .updateTable('posts')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .returning(RETURNED_COLUMNS)
    .executeTakeFirst()
  return row && toPostRecord(row)
}

export async function softDeletePost(db: Executor, id: number): Promise<boolean> {
  const now = nowIso()
  const result = await db
    .updateTable('posts')
    .set({ is_deleted: 1, deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Removes the row whether soft-deleted or not. */
export async function deletePostPermanently(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('posts').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}
