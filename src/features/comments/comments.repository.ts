// The comments slice's SQL, the only place it lives. A page of threads or replies is narrowed to
// what its viewer may see in the query (comment.ts says how each reads): visible comments, hidden
// ones to their author and the post's moderators, and a tombstone only where replies hang under it.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Database, Executor } from '../../db/schema.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { CommentViewer } from './comment.js'
import type { CommentRow } from './comments.table.js'
import { COMMENT_COLUMNS } from './comments.table.js'

type CommentExpressions = ExpressionBuilder<Database, 'comments'>

/** The comments whose author the viewer has not blocked (the blocks slice's user_blocks, read here as an insert reads users); everything for nobody signed in. */
const notBlockedBy = (viewer: number | null) =>
  viewer === null ? sql<SqlBool>`1 = 1` : sql<SqlBool>`not exists (select 1 from user_blocks where user_blocks.blocker_id = ${viewer} and user_blocks.blocked_id = comments.author_id)`

/** Oldest first (a conversation read in order) or newest first. */
export type CommentOrder = 'oldest' | 'newest'

/** What of a thread the viewer sees: visible comments, and hidden ones where they are the author or a moderator. */
function seenBy(eb: CommentExpressions, viewer: CommentViewer): Expression<SqlBool> {
  const visible = eb.and([eb('comments.status', '=', 'visible'), eb('comments.is_deleted', '=', 0)])
  if (viewer.moderates) return eb.or([visible, eb.and([eb('comments.status', '=', 'hidden'), eb('comments.is_deleted', '=', 0)])])
  if (viewer.userId === null) return visible
  return eb.or([visible, eb.and([eb('comments.status', '=', 'hidden'), eb('comments.is_deleted', '=', 0), eb('comments.author_id', '=', viewer.userId)])])
}

/** A top-level comment in a page: one the viewer sees, or a tombstone that replies still hang under. */
const threadSeenBy = (viewer: CommentViewer) => (eb: CommentExpressions) => eb.or([seenBy(eb, viewer), eb('comments.reply_count', '>', 0)])

function threadsQuery(db: Executor, postId: number, viewer: CommentViewer) {
  return db
    .selectFrom('comments')
    .where('comments.post_id', '=', postId)
    .where('comments.parent_id', 'is', null)
    .where(threadSeenBy(viewer))
    .where(() => notBlockedBy(viewer.userId))
}

/** A page of the post's threads in `order`, from `after` (keyset) or at `offset`. */
export function threadsPage(db: Executor, postId: number, viewer: CommentViewer, order: CommentOrder, { offset, limit, after }: RowWindow): Promise<CommentRow[]> {
  return threadsQuery(db, postId, viewer)
    .select(COMMENT_COLUMNS)
    .$if(after !== undefined, (qb) => qb.where('comments.id', order === 'oldest' ? '>' : '<', after ?? 0))
    .orderBy('comments.id', order === 'oldest' ? 'asc' : 'desc')
    .limit(limit)
    .offset(offset)
    .execute()
}

function repliesQuery(db: Executor, parentId: number, viewer: CommentViewer) {
  return db.selectFrom('comments').where('comments.parent_id', '=', parentId).where((eb) => seenBy(eb, viewer)).where(() => notBlockedBy(viewer.userId))
}

/** A page of a comment's replies the viewer sees, oldest first. */
export function repliesPage(db: Executor, parentId: number, viewer: CommentViewer, { offset, limit, after }: RowWindow): Promise<CommentRow[]> {
  return repliesQuery(db, parentId, viewer)
    .select(COMMENT_COLUMNS)
    .$if(after !== undefined, (qb) => qb.where('comments.id', '>', after ?? 0))
    .orderBy('comments.id', 'asc')
    .limit(limit)
    .offset(offset)
    .execute()
}

/**
 * How many threads of the post (`parentId` null) or replies of the comment the viewer pages
 * through, without counting them: the count kept by triggers (posts.thread_count, a comment's
 * reply_count) of what everyone sees, plus the hidden ones this viewer sees too (their own, or
 * all for a moderator: a post has few), minus the kept ones whose author the viewer blocks.
 * The same rows as threadsQuery and repliesQuery select; comments.v2.test.ts holds them equal.
 */
export async function totalSeen(db: Executor, postId: number, parentId: number | null, viewer: CommentViewer): Promise<number> {
  const under = (eb: CommentExpressions) => (parentId === null ? eb('comments.parent_id', 'is', null) : eb('comments.parent_id', '=', parentId))
  const kept =
    parentId === null
      ? db.selectFrom('posts').select('posts.thread_count as kept').where('posts.id', '=', postId)
      : db.selectFrom('comments').select('comments.reply_count as kept').where('comments.id', '=', parentId)
  const { userId, moderates } = viewer
  const hiddenSeen = db
    .selectFrom('comments')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('comments.post_id', '=', postId)
    .where(under)
    // Literal, so that SQLite takes the partial index comments_hidden_idx.
    .where(sql<SqlBool>`comments.status = 'hidden'`)
    .where('comments.is_deleted', '=', 0)
    // One with replies is counted already, as a tombstone everyone sees.
    .where('comments.reply_count', '=', 0)
    .$if(!moderates, (qb) => qb.where('comments.author_id', '=', userId))
    .where(() => notBlockedBy(userId))
  const blockedKept = db
    .selectFrom('user_blocks')
    .innerJoin('comments', 'comments.author_id', 'user_blocks.blocked_id')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_blocks.blocker_id', '=', userId)
    .where('comments.post_id', '=', postId)
    .where(under)
    .where((eb) => eb.or([eb.and([eb('comments.status', '=', 'visible'), eb('comments.is_deleted', '=', 0)]), eb('comments.reply_count', '>', 0)]))
  if (userId === null && !moderates) return Number((await kept.executeTakeFirst())?.kept ?? 0)
  const row = await db
    .selectNoFrom([
      kept.as('kept'),
      hiddenSeen.as('hidden_seen'),
      ...(userId === null ? [] : [blockedKept.as('blocked_kept')]),
    ])
    .executeTakeFirst()
  return row === undefined ? 0 : Number(row.kept ?? 0) + Number(row.hidden_seen) - Number('blocked_kept' in row ? row.blocked_kept : 0)
}

/** The first `perThread` replies the viewer sees under each of these comments, oldest first: one statement for a page of threads. */
export async function firstRepliesOf(db: Executor, parentIds: readonly number[], perThread: number, viewer: CommentViewer): Promise<CommentRow[]> {
  if (parentIds.length === 0) return []
  const ranked = db
    .selectFrom('comments')
    .select([...COMMENT_COLUMNS, sql<number>`row_number() over (partition by comments.parent_id order by comments.id)`.as('place')])
    .where('comments.parent_id', 'in', [...parentIds])
    .where((eb) => seenBy(eb, viewer))
    .where(() => notBlockedBy(viewer.userId))
    .as('ranked')
  const rows = await db.selectFrom(ranked).selectAll().where('ranked.place', '<=', perThread).orderBy('ranked.parent_id').orderBy('ranked.id').execute()
  return rows.map(({ place: _place, ...row }) => row as CommentRow)
}

/** These comments, in no order (a page of search hits puts them in its own). */
export function findComments(db: Executor, ids: readonly number[]): Promise<CommentRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('comments').select(COMMENT_COLUMNS).where('id', 'in', [...ids]).execute()
}

export function findComment(db: Executor, id: number): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').select(COMMENT_COLUMNS).where('id', '=', id).executeTakeFirst()
}

/** The comment, held until the unit ends in PostgreSQL (SQLite runs one writer at a time): a change decides on it as it is. */
export function findCommentForChange(db: Executor, id: number): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').select(COMMENT_COLUMNS).where('id', '=', id).$if(isPostgres(db), (qb) => qb.forUpdate()).executeTakeFirst()
}

export interface NewCommentRow {
  post_id: number
  author_id: number
  parent_id: number | null
  text: string
}

/** Inserts the comment while its author is live (as a post's insert: a concurrent account deletion hides it or waits). */
export function insertComment(db: Executor, comment: NewCommentRow): Promise<CommentRow | undefined> {
  const now = nowIso()
  return db
    .insertInto('comments')
    .columns(['post_id', 'author_id', 'parent_id', 'text', 'created_at', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([eb.val(comment.post_id).as('post_id'), 'users.id', eb.val(comment.parent_id).as('parent_id'), eb.val(comment.text).as('text'), eb.val(now).as('created_at'), eb.val(now).as('updated_at')])
        .where('users.id', '=', comment.author_id)
        .where('users.is_deleted', '=', 0)
        .$if(isPostgres(db), (qb) => qb.forShare()),
    )
    .returning(COMMENT_COLUMNS)
    .executeTakeFirst()
}

export interface CommentRowChanges {
  text?: string
  status?: string
  hidden_reason?: string | null
  moderated_by?: number | null
  edited_at?: string
}

export function updateComment(db: Executor, id: number, changes: CommentRowChanges): Promise<CommentRow | undefined> {
  return db
    .updateTable('comments')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .returning(COMMENT_COLUMNS)
    .executeTakeFirst()
}

/** Hides every comment of an author with their account (soft delete). */
export async function hideCommentsOf(db: Executor, authorId: number): Promise<void> {
  const now = nowIso()
  await db.updateTable('comments').set({ is_deleted: 1, deleted_at: now, updated_at: now }).where('author_id', '=', authorId).where('is_deleted', '=', 0).execute()
}

/** Brings back the author's comments hidden at or after `since` (with the account). */
export async function unhideCommentsOf(db: Executor, authorId: number, since: string): Promise<void> {
  await db.updateTable('comments').set({ is_deleted: 0, deleted_at: null, updated_at: nowIso() }).where('author_id', '=', authorId).where('is_deleted', '=', 1).where('deleted_at', '>=', since).execute()
}

/** The author's comments that others could read become `toAuthorId`'s (an account removed with ACCOUNT_DELETION_CONTENT=anonymize). */
export async function handOverCommentsOf(db: Executor, fromAuthorId: number, toAuthorId: number): Promise<void> {
  await db.updateTable('comments').set({ author_id: toAuthorId, is_deleted: 0, deleted_at: null }).where('author_id', '=', fromAuthorId).where('status', 'in', ['visible', 'hidden']).execute()
}

/** Erases every comment of an account removed for good: its words go, its place in the threads stays (the row outlives the account, without an author). */
export async function eraseCommentsOf(db: Executor, authorId: number): Promise<void> {
  await db.updateTable('comments').set({ text: '', status: 'deleted', hidden_reason: null, updated_at: nowIso() }).where('author_id', '=', authorId).execute()
}

/** An author's comments, oldest first, after the id `after`: their data export's pages. */
export function commentsOfAuthorAfter(db: Executor, authorId: number, after: number, limit: number): Promise<CommentRow[]> {
  return db.selectFrom('comments').select(COMMENT_COLUMNS).where('author_id', '=', authorId).where('id', '>', after).orderBy('id').limit(limit).execute()
}

/** This slice's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const commentsFunctions = {
  threadsPage,
  repliesPage,
  totalSeen,
  firstRepliesOf,
  findComment,
  findComments,
  findCommentForChange,
  insertComment,
  updateComment,
  hideCommentsOf,
  unhideCommentsOf,
  handOverCommentsOf,
  eraseCommentsOf,
  commentsOfAuthorAfter,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const commentsReadTargets: ReadTargets<typeof commentsFunctions> = {
  threadsPage: 'replica',
  repliesPage: 'replica',
  totalSeen: 'replica',
  firstRepliesOf: 'replica',
  findComment: 'replica',
  findComments: 'replica',
  findCommentForChange: 'write',
  insertComment: 'write',
  updateComment: 'write',
  hideCommentsOf: 'write',
  unhideCommentsOf: 'write',
  handOverCommentsOf: 'write',
  eraseCommentsOf: 'write',
  commentsOfAuthorAfter: 'primary',
}

export type CommentsRepository = Repository<typeof commentsFunctions>
