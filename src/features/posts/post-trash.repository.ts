// The trash's SQL (docs/api.md "Trash"): a post deleted through version 2 is a deleted post that
// also says until when it may come back, and who deleted it. Nothing else reads it: every other
// read leaves deleted posts out, as it always has.
import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PostRow } from './posts.table.js'
import { POST_COLUMNS } from './posts.table.js'

export type TrashedPostRow = PostRow & { deleted_at: Date | string | null; trashed_until: Date | string | null; trashed_by: number | null }

const TRASHED_COLUMNS = [...POST_COLUMNS, 'deleted_at', 'trashed_until', 'trashed_by'] as const

/**
 * Deletes a live post into the trash at `at` until `until` (ISO times the caller takes from one
 * clock reading, so the time in the trash is exact); false when there is no live post with that id.
 */
export async function trashPost(db: Executor, id: number, by: number, at: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('posts')
    .set({ is_deleted: 1, deleted_at: at, updated_at: at, trashed_until: until, trashed_by: by })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** A post in the trash (deleted into it, its time not yet past), held for the rest of the unit on PostgreSQL. */
export function findTrashedPost(db: Executor, id: number): Promise<TrashedPostRow | undefined> {
  return db
    .selectFrom('posts')
    .select(TRASHED_COLUMNS)
    .where('id', '=', id)
    .where('is_deleted', '=', 1)
    .where('trashed_until', '>', nowIso())
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst()
}

/** Brings a trashed post back: live again, out of the trash. */
export function untrashPost(db: Executor, id: number): Promise<PostRow | undefined> {
  return db
    .updateTable('posts')
    .set({ is_deleted: 0, deleted_at: null, trashed_until: null, trashed_by: null, updated_at: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 1)
    .where('trashed_until', '>', nowIso())
    .returning(POST_COLUMNS)
    .executeTakeFirst()
}

/** An author's trash, most recently deleted first. */
export function trashOf(db: Executor, authorId: number, offset: number, limit: number): Promise<TrashedPostRow[]> {
  return trashedPostsOf(db, authorId).select(TRASHED_COLUMNS).orderBy('deleted_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
}

export async function countTrashOf(db: Executor, authorId: number): Promise<number> {
  const { count } = await trashedPostsOf(db, authorId).select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(count)
}

const trashedPostsOf = (db: Executor, authorId: number) => db.selectFrom('posts').where('author_id', '=', authorId).where('is_deleted', '=', 1).where('trashed_until', '>', nowIso())

/** The ids of trashed posts whose time has passed, oldest due first. */
export async function dueForPurge(db: Executor, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('posts').select('id').where('trashed_until', '<=', nowIso()).where('is_deleted', '=', 1).orderBy('trashed_until').limit(limit).execute()
  return rows.map((row) => row.id)
}

/**
 * Claims a due post for its purge in the unit: on PostgreSQL the row stays locked until the unit
 * ends, so a second process that claims it waits and then finds it gone; SQLite has one writer.
 */
export function claimDuePost(db: Executor, id: number): Promise<PostRow | undefined> {
  return db
    .updateTable('posts')
    .set({ trashed_until: nowIso() })
    .where('id', '=', id)
    .where('is_deleted', '=', 1)
    .where('trashed_until', '<=', nowIso())
    .returning(POST_COLUMNS)
    .executeTakeFirst()
}

export const postTrashFunctions = { trashPost, findTrashedPost, untrashPost, trashOf, countTrashOf, dueForPurge, claimDuePost }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const postTrashReadTargets: ReadTargets<typeof postTrashFunctions> = {
  trashPost: 'write',
  findTrashedPost: 'write',
  untrashPost: 'write',
  trashOf: 'replica',
  countTrashOf: 'replica',
  dueForPurge: 'primary',
  claimDuePost: 'write',
}

export type PostTrashRepository = Repository<typeof postTrashFunctions>
