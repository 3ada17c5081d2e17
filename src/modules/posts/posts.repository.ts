// The only place post SQL lives. A post is visible while it is not soft-deleted; soft-deleting
// a user soft-deletes their posts too (see hidePostsOf), so no read needs to join the author.
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/prepared.js'
import { liveRowCount } from '../../db/row-counts.js'
import { softDeleteRow } from '../../db/soft-delete.js'
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

/** Columns of PostRead. */
const RETURNED_COLUMNS = ['id', 'title', 'text', 'media_url', 'author_id', 'created_at', 'updated_at'] as const

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
  return db.selectFrom('posts').where('posts.is_deleted', '=', 0)
}

const postById = preparedQuery(1, (db, id: number) => visiblePosts(db).select(RETURNED_COLUMNS).where('posts.id', '=', id))

export async function findPostById(db: Executor, id: number): Promise<PostRecord | undefined> {
  const [row] = await postById(db, id)
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

// The two listings without a text search are the common ones: compiled once.
// As for users: the page's ids from the (is_deleted, id) index, then only those rows.
const newestPosts = preparedQuery(2, (db, offset: number, limit: number) =>
  visiblePosts(db)
    .select(RETURNED_COLUMNS)
    .where('posts.id', 'in', (eb) =>
      eb.selectFrom('posts').select('posts.id').where('posts.is_deleted', '=', 0).orderBy('posts.id', 'desc').limit(limit).offset(offset),
    )
    .orderBy('posts.id', 'desc'),
)
const newestPostsBy = preparedQuery(3, (db, authorId: number, offset: number, limit: number) =>
  visiblePosts(db).select(RETURNED_COLUMNS).where('posts.author_id', '=', authorId).orderBy('posts.id', 'desc').limit(limit).offset(offset),
)

/** Newest first. */
export async function listPosts(db: Executor, filter: PostFilter, offset: number, limit: number): Promise<PostRecord[]> {
  let rows: PostRow[]
  if (filter.search !== undefined) {
    rows = await filteredPosts(db, filter).select(RETURNED_COLUMNS).orderBy('posts.id', 'desc').limit(limit).offset(offset).execute()
  } else if (filter.authorId !== undefined) {
    rows = await newestPostsBy(db, filter.authorId, offset, limit)
  } else {
    rows = await newestPosts(db, offset, limit)
  }
  return rows.map(toPostRecord)
}

export async function countPosts(db: Executor, filter: PostFilter): Promise<number> {
  if (filter.search === undefined && filter.authorId === undefined) return liveRowCount(db, 'posts')
  const { count } = await filteredPosts(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

/**
 * Inserts the post only while its author is live, in one statement. In PostgreSQL the author's
 * row is share-locked, so a concurrent soft delete of the author either waits for this insert
 * (and then hides the new post with the others) or wins and this inserts nothing. SQLite runs
 * one writer at a time, which gives the same guarantee.
 */
const insertLivePost = preparedQuery(
  5,
  (db, authorId: number, title: string, text: string, mediaUrl: string | null, now: string) =>
    db
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
      .returning(RETURNED_COLUMNS),
)

export async function insertPost(db: Executor, post: NewPost): Promise<PostRecord | undefined> {
  const [row] = await insertLivePost(db, post.author_id, post.title, post.text, post.media_url, nowIso())
  return row && toPostRecord(row)
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

export function softDeletePost(db: Executor, id: number): Promise<boolean> {
  return softDeleteRow(db, 'posts', id)
}

/** Removes the row whether soft-deleted or not. */
export async function deletePostPermanently(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('posts').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}
