// SQL for the data exports: the job rows, their claims under a lease, and the finished ZIPs' keys.
import type { Selectable } from 'kysely'
import { sql } from 'kysely'

import { uniqueViolation } from '../../db/errors.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { DataExportsTable } from './data-exports.table.js'

export type DataExportRow = Selectable<DataExportsTable>

/** The newest export but `exceptId` asked for since `since` that did not fail (they count towards the daily limit). */
export async function newestCountedSince(db: Executor, userId: number, since: string, exceptId: number): Promise<DataExportRow | undefined> {
  return db
    .selectFrom('data_exports')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '!=', exceptId)
    .where('created_at', '>=', since)
    .where('status', '!=', 'failed')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** A new queued export; undefined when the user has one queued or building already (the partial unique index decides, across processes). */
export async function insertExport(db: Executor, userId: number, createdAt: string, now: number): Promise<DataExportRow | undefined> {
  try {
    return await db.insertInto('data_exports').values({ user_id: userId, status: 'queued', next_attempt_at: now, created_at: createdAt }).returningAll().executeTakeFirstOrThrow()
  } catch (error) {
    if (uniqueViolation(error) !== undefined) return undefined
    throw error
  }
}

export function findExport(db: Executor, userId: number, id: number): Promise<DataExportRow | undefined> {
  return db.selectFrom('data_exports').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
}

export function findExportById(db: Executor, id: number): Promise<DataExportRow | undefined> {
  return db.selectFrom('data_exports').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listExports(db: Executor, userId: number, limit: number): Promise<DataExportRow[]> {
  return db.selectFrom('data_exports').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute()
}

const claimable = (now: number) =>
  sql<boolean>`(status = 'queued' or (status = 'building' and claimed_until < ${now}))`

/**
 * Claims one due export for `worker` until `leaseUntil` (epoch ms): a queued one, or one whose
 * builder stopped renewing its lease (killed mid-build). The previous attempt's key comes back
 * with it, for its leftovers to be removed. One statement: two processes never claim one row.
 */
export async function claimExport(db: Executor, worker: string, now: number, leaseUntil: number, storageKey: (row: { id: number; user_id: number; attempts: number }) => string): Promise<{ row: DataExportRow; previousKey: string | null } | undefined> {
  const due = await db
    .selectFrom('data_exports')
    .select(['id', 'user_id', 'attempts', 'storage_key'])
    .where('next_attempt_at', '<=', now)
    .where(claimable(now))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  if (!due) return undefined
  const row = await db
    .updateTable('data_exports')
    .set({ status: 'building', claimed_by: worker, claimed_until: leaseUntil, attempts: sql`attempts + 1`, items_written: 0, storage_key: storageKey(due) })
    .where('id', '=', due.id)
    .where('next_attempt_at', '<=', now)
    .where(claimable(now))
    .returningAll()
    .executeTakeFirst()
  return row ? { row, previousKey: due.storage_key } : undefined
}

/** Renews the lease and records progress; false when the claim was lost (the lease lapsed and another process took the job). */
export async function renewClaim(db: Executor, id: number, worker: string, leaseUntil: number, itemsWritten: number): Promise<boolean> {
  const result = await db
    .updateTable('data_exports')
    .set({ claimed_until: leaseUntil, items_written: itemsWritten })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'building')
    .executeTakeFirst()
  return (result.numUpdatedRows ?? 0n) > 0n
}

export async function finishExport(db: Executor, id: number, worker: string, done: { size: number; itemsWritten: number; finishedAt: string; expiresAt: string }): Promise<boolean> {
  const result = await db
    .updateTable('data_exports')
    .set({ status: 'ready', size: done.size, items_written: done.itemsWritten, finished_at: done.finishedAt, expires_at: done.expiresAt, claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'building')
    .executeTakeFirst()
  return (result.numUpdatedRows ?? 0n) > 0n
}

/** Gives the job back: queued again, due at `nextAttemptAt` (now when the process is stopping, later after a failure); `refund` does not count the attempt. */
export async function releaseExport(db: Executor, id: number, worker: string, nextAttemptAt: number, options: { refund?: boolean } = {}): Promise<void> {
  await db
    .updateTable('data_exports')
    .set({ status: 'queued', next_attempt_at: nextAttemptAt, claimed_by: null, claimed_until: null, ...(options.refund ? { attempts: sql`attempts - 1` } : {}) })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

export async function failExport(db: Executor, id: number, worker: string, finishedAt: string): Promise<void> {
  await db
    .updateTable('data_exports')
    .set({ status: 'failed', finished_at: finishedAt, storage_key: null, claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

/** When the next queued export is due (epoch ms), or a lapsed lease can be taken over. */
export async function nextExportDueAt(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom('data_exports')
    .select((eb) => [eb.fn.min('next_attempt_at').as('queued'), eb.fn.min('claimed_until').as('lapses')])
    .where('status', 'in', ['queued', 'building'])
    .executeTakeFirst()
  const times = [row?.queued, row?.lapses].filter((time) => time !== null && time !== undefined).map(Number)
  return times.length === 0 ? undefined : Math.min(...times)
}

/** Ready exports whose time ran out, and failed ones that ended before `failedBefore`: removed with their ZIP. */
export function expiredExports(db: Executor, now: string, failedBefore: string, limit: number): Promise<{ id: number; storage_key: string | null }[]> {
  return db
    .selectFrom('data_exports')
    .select(['id', 'storage_key'])
    .where((eb) => eb.or([eb.and([eb('status', '=', 'ready'), eb('expires_at', '<', now)]), eb.and([eb('status', '=', 'failed'), eb('finished_at', '<', failedBefore)])]))
    .orderBy('id')
    .limit(limit)
    .execute()
}

export async function deleteExport(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('data_exports').where('id', '=', id).execute()
}

/** Every stored ZIP of a user's (building or ready), for their removal with the account. */
export async function storageKeysOf(db: Executor, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('data_exports').select('storage_key').where('user_id', '=', userId).where('storage_key', 'is not', null).execute()
  return rows.map((row) => row.storage_key).filter((key): key is string => key !== null)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const dataExportsFunctions = {
  newestCountedSince,
  insertExport,
  findExport,
  findExportById,
  listExports,
  claimExport,
  renewClaim,
  finishExport,
  releaseExport,
  failExport,
  nextExportDueAt,
  expiredExports,
  deleteExport,
  storageKeysOf,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const dataExportsReadTargets: ReadTargets<typeof dataExportsFunctions> = {
  newestCountedSince: 'primary',
  insertExport: 'write',
  findExport: 'primary',
  findExportById: 'primary',
  listExports: 'primary',
  claimExport: 'write',
  renewClaim: 'write',
  finishExport: 'write',
  releaseExport: 'write',
  failExport: 'write',
  nextExportDueAt: 'primary',
  expiredExports: 'write',
  deleteExport: 'write',
  storageKeysOf: 'primary',
}

export type DataExportsRepository = Repository<typeof dataExportsFunctions>
