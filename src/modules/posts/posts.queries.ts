// Post query builders: the SQL of the posts module, built but not run. posts.repository.ts runs
// them; posts.prepared.ts compiles the hot ones once. A post is visible while it is not
// soft-deleted; soft-deleting a user soft-deletes their posts too, so no read joins the author.
import { sql } from 'kysely'
import type { Selectable } from 'kysely'
import { isPostgres } from '../../db/dialect.js'
import type { Executor, PostsTable } from '../../db/schema.js'
import { likeContains } from '../../shared/like-pattern.js'
import type { PostFilter } from './post.js'

/** Columns of a post as every read returns it. */
export const POST_COLUMNS = ['id', 'title', 'text', 'media_url', 'author_id', 'created_at', 'updated_at'] as const

export type PostRow = Pick<Selectable<PostsTable>, (typeof POST_COLUMNS)[number]>

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
