// The files slice's SQL: files and their variants, each user's usage and the store's outbox.
// Quota checks are one conditional UPDATE each, so concurrent uploads (in any process, on either
// database) cannot pass a quota together; the outbox is claimed like the other relays' rows.
import type { Insertable } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import { idListValue, inIdList } from '../../db/id-list.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { FileRow, FilesTable } from './files.table.js'

export type NewFileRow = Omit<Insertable<FilesTable>, 'created_at'>

export interface Quota {
  bytes: number
  files: number
}

export interface UsageRow {
  bytes: number
  files: number
  reservedBytes: number
  reservedFiles: number
}

export function insertFile(db: Executor, row: NewFileRow): Promise<FileRow> {
  return db.insertInto('files').values({ ...row, created_at: nowIso() }).returningAll().executeTakeFirstOrThrow()
}

export function findFile(db: Executor, id: number): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The file held for the rest of the transaction (PostgreSQL; SQLite's writer holds the database). */
export function findFileForChange(db: Executor, id: number): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).$if(isPostgres(db), (query) => query.forUpdate()).executeTakeFirst()
}

/** Turns an upload into a file (its bytes under `storageKey`), once: undefined when another request completed or abandoned it first. */
export async function markReady(db: Executor, id: number, facts: { size: number; sha256: string; contentType: string; storageKey: string }): Promise<FileRow | undefined> {
  return db
    .updateTable('files')
    .set({ status: 'ready', size: facts.size, sha256: facts.sha256, content_type: facts.contentType, storage_key: facts.storageKey, expires_at: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst()
}

export function deleteFiles(db: Executor, ids: readonly number[]): Promise<FileRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.deleteFrom('files').where('id', 'in', ids).returningAll().execute()
}

export async function fileIdsOfPost(db: Executor, postId: number): Promise<number[]> {
  return (await db.selectFrom('files').select('id').where('post_id', '=', postId).execute()).map((row) => row.id)
}

export async function fileIdsOwnedBy(db: Executor, ownerId: number): Promise<number[]> {
  return (await db.selectFrom('files').select('id').where('owner_id', '=', ownerId).execute()).map((row) => row.id)
}

/** The owner's completed files, newest first: a page by offset, or the ones after a cursor's id. */
export function listFilesOf(db: Executor, ownerId: number, window: RowWindow): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where('status', '=', 'ready')
    .$if(window.after !== undefined, (query) => query.where('id', '<', window.after!))
    .orderBy('id', 'desc')
    .offset(window.offset)
    .limit(window.limit)
    .execute()
}

export async function countFilesOf(db: Executor, ownerId: number): Promise<number> {
  const row = await db.selectFrom('files').select((eb) => eb.fn.countAll().as('count')).where('owner_id', '=', ownerId).where('status', '=', 'ready').executeTakeFirstOrThrow()
  return Number(row.count)
}

/** The ready files of these posts, oldest first: one statement whatever the number of posts (a page's). */
export function filesOfPostsQuery(db: Executor, postIds: unknown) {
  return db.selectFrom('files').selectAll().where(inIdList(db, 'files.post_id', postIds)).where('status', '=', 'ready').orderBy('id')
}

export const preparedFilesOfPosts = preparedQuery(1, filesOfPostsQuery)

export function filesOfPosts(db: Executor, postIds: readonly number[]): Promise<FileRow[]> {
  if (postIds.length === 0) return Promise.resolve([])
  return preparedFilesOfPosts(db, idListValue(db, postIds))
}

export function findFilesForChange(db: Executor, ids: readonly number[]): Promise<FileRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('files').selectAll().where('id', 'in', ids).$if(isPostgres(db), (query) => query.forUpdate()).execute()
}

/** Attaches the files to the post and detaches the post's others. */
export async function setAttachments(db: Executor, postId: number, fileIds: readonly number[]): Promise<void> {
  await db
    .updateTable('files')
    .set({ post_id: null })
    .where('post_id', '=', postId)
    .$if(fileIds.length > 0, (query) => query.where('id', 'not in', fileIds))
    .execute()
  if (fileIds.length > 0) await db.updateTable('files').set({ post_id: postId }).where('id', 'in', fileIds).execute()
}

/** Uploads past their expiry, oldest first, held for the transaction that abandons them. */
export function expiredUploads(db: Executor, now: string, limit: number): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '<', now)
    .orderBy('expires_at')
    .limit(limit)
    .$if(isPostgres(db), (query) => query.forUpdate().skipLocked())
    .execute()
}

/** Whether a row names this storage key (a file's or a variant's). */
export async function keyIsKnown(db: Executor, key: string): Promise<boolean> {
  const file = await db.selectFrom('files').select('id').where('storage_key', '=', key).executeTakeFirst()
  if (file) return true
  return (await db.selectFrom('file_variants').select('file_id').where('storage_key', '=', key).executeTakeFirst()) !== undefined
}

/** Completed files, after the cursor, for the sweep that checks each still has its object. */
export function readyFilesAfter(db: Executor, afterId: number, limit: number): Promise<Pick<FileRow, 'id' | 'storage_key'>[]> {
  return db.selectFrom('files').select(['id', 'storage_key']).where('status', '=', 'ready').where('id', '>', afterId).orderBy('id').limit(limit).execute()
}

// Variants

export function findVariant(db: Executor, fileId: number, preset: string): Promise<{ storage_key: string; size: number | string } | undefined> {
  return db.selectFrom('file_variants').select(['storage_key', 'size']).where('file_id', '=', fileId).where('preset', '=', preset).executeTakeFirst()
}

export async function insertVariant(db: Executor, fileId: number, preset: string, storageKey: string, size: number): Promise<void> {
  await db
    .insertInto('file_variants')
    .values({ file_id: fileId, preset, storage_key: storageKey, size, created_at: nowIso() })
    .onConflict((conflict) => conflict.columns(['file_id', 'preset']).doNothing())
    .execute()
}

export async function variantKeysOf(db: Executor, fileIds: readonly number[]): Promise<string[]> {
  if (fileIds.length === 0) return []
  const rows = await db.selectFrom('file_variants').select('storage_key').where('file_id', 'in', fileIds).execute()
  return rows.map((row) => row.storage_key)
}

// Usage

export async function findUsage(db: Executor, userId: number): Promise<UsageRow> {
  const row = await db.selectFrom('storage_usage').selectAll().where('user_id', '=', userId).executeTakeFirst()
  return {
    bytes: Number(row?.bytes ?? 0),
    files: Number(row?.files ?? 0),
    reservedBytes: Number(row?.reserved_bytes ?? 0),
    reservedFiles: Number(row?.reserved_files ?? 0),
  }
}

/**
 * Reserves room for an upload if the quota has it, counting what is stored and what other
 * uploads in progress reserved. One statement: of two uploads at the edge, one gets the room.
 */
export async function reserve(db: Executor, userId: number, bytes: number, quota: Quota): Promise<boolean> {
  await db.insertInto('storage_usage').values({ user_id: userId }).onConflict((conflict) => conflict.column('user_id').doNothing()).execute()
  const result = await db
    .updateTable('storage_usage')
    .set({ reserved_bytes: sql`reserved_bytes + ${bytes}`, reserved_files: sql`reserved_files + 1` })
    .where('user_id', '=', userId)
    .where(sql<boolean>`bytes + reserved_bytes + ${bytes} <= ${quota.bytes}`)
    .where(sql<boolean>`files + reserved_files + 1 <= ${quota.files}`)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/**
 * Moves a completed upload from reserved to counted, at its real size, in the statement that
 * checks it against the quota: false (nothing changed) when its real size takes the owner past it.
 */
export async function commitReserved(db: Executor, userId: number, reservedBytes: number, bytes: number, quota: Quota): Promise<boolean> {
  const result = await db
    .updateTable('storage_usage')
    .set({
      reserved_bytes: sql`reserved_bytes - ${reservedBytes}`,
      reserved_files: sql`reserved_files - 1`,
      bytes: sql`bytes + ${bytes}`,
      files: sql`files + 1`,
    })
    .where('user_id', '=', userId)
    .where(sql<boolean>`bytes + reserved_bytes - ${reservedBytes} + ${bytes} <= ${quota.bytes}`)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function releaseReserved(db: Executor, userId: number, reservedBytes: number): Promise<void> {
  await db
    .updateTable('storage_usage')
    .set({ reserved_bytes: sql`reserved_bytes - ${reservedBytes}`, reserved_files: sql`reserved_files - 1` })
    .where('user_id', '=', userId)
    .execute()
}

export async function uncount(db: Executor, userId: number, bytes: number, files: number): Promise<void> {
  await db
    .updateTable('storage_usage')
    .set({ bytes: sql`bytes - ${bytes}`, files: sql`files - ${files}` })
    .where('user_id', '=', userId)
    .execute()
}

// The store's outbox

export async function queueBlobDeletions(db: Executor, keys: readonly string[], now: number): Promise<void> {
  if (keys.length === 0) return
  const createdAt = nowIso()
  await db
    .insertInto('blob_deletions')
    .values(keys.map((key) => ({ storage_key: key, next_attempt_at: now, created_at: createdAt })))
    .execute()
}

/** Claims due deletions for `worker` until `leaseUntil` (epoch ms). */
export function claimBlobDeletions(db: Executor, worker: string, now: number, leaseUntil: number, limit: number): Promise<{ id: number; storage_key: string; attempts: number }[]> {
  return db
    .updateTable('blob_deletions')
    .set({ claimed_by: worker, claimed_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('blob_deletions as due')
        .select('due.id')
        .where('due.next_attempt_at', '<=', now)
        .where((inner) => inner.or([inner('due.claimed_until', 'is', null), inner('due.claimed_until', '<', now)]))
        .orderBy('due.id')
        .limit(limit)
        .$if(isPostgres(db), (query) => query.forUpdate().skipLocked()),
    )
    .where((inner) => inner.or([inner('claimed_until', 'is', null), inner('claimed_until', '<', now)]))
    .returning(['id', 'storage_key', 'attempts'])
    .execute()
}

export async function finishBlobDeletion(db: Executor, id: number, worker: string): Promise<void> {
  await db.deleteFrom('blob_deletions').where('id', '=', id).where('claimed_by', '=', worker).execute()
}

export async function retryBlobDeletion(db: Executor, id: number, worker: string, nextAttemptAt: number): Promise<void> {
  await db
    .updateTable('blob_deletions')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: nextAttemptAt, claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

export async function nextBlobDeletionDueAt(db: Executor): Promise<number | undefined> {
  const row = await db.selectFrom('blob_deletions').select((eb) => eb.fn.min('next_attempt_at').as('due')).executeTakeFirst()
  return row?.due === null || row?.due === undefined ? undefined : Number(row.due)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const filesFunctions = {
  insertFile,
  findFile,
  findFileForChange,
  markReady,
  deleteFiles,
  fileIdsOfPost,
  fileIdsOwnedBy,
  listFilesOf,
  countFilesOf,
  filesOfPosts,
  findFilesForChange,
  setAttachments,
  expiredUploads,
  keyIsKnown,
  readyFilesAfter,
  findVariant,
  insertVariant,
  variantKeysOf,
  findUsage,
  reserve,
  commitReserved,
  releaseReserved,
  uncount,
  queueBlobDeletions,
  claimBlobDeletions,
  finishBlobDeletion,
  retryBlobDeletion,
  nextBlobDeletionDueAt,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const filesReadTargets: ReadTargets<typeof filesFunctions> = {
  insertFile: 'write',
  findFile: 'replica',
  findFileForChange: 'write',
  markReady: 'write',
  deleteFiles: 'write',
  fileIdsOfPost: 'primary',
  fileIdsOwnedBy: 'primary',
  listFilesOf: 'replica',
  countFilesOf: 'replica',
  filesOfPosts: 'replica',
  findFilesForChange: 'write',
  setAttachments: 'write',
  expiredUploads: 'write',
  keyIsKnown: 'primary',
  readyFilesAfter: 'primary',
  findVariant: 'primary',
  insertVariant: 'write',
  variantKeysOf: 'primary',
  findUsage: 'primary',
  reserve: 'write',
  commitReserved: 'write',
  releaseReserved: 'write',
  uncount: 'write',
  queueBlobDeletions: 'write',
  claimBlobDeletions: 'write',
  finishBlobDeletion: 'write',
  retryBlobDeletion: 'write',
  nextBlobDeletionDueAt: 'primary',
}

export type FilesRepository = Repository<typeof filesFunctions>
