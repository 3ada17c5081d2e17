// The change-events feature's SQL. Forwarding claims unforwarded rows in id order: FOR UPDATE
// SKIP LOCKED on PostgreSQL (two processes never forward one row), the single writer on SQLite.
import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { ChangeEventRow } from './change-events.table.js'

export interface NewChangeEventRow {
  message_id: string
  type: string
  subject: string
  user_id: number | null
  data: string
  created_at: string
}

// Every change writes one, in its own transaction: compiled once, not built for each.
const preparedInsertChangeEvent = preparedQuery(6, (db: Executor, messageId: string, type: string, subject: string, userId: number | null, data: string, createdAt: string) =>
  db.insertInto('change_events').values({ message_id: messageId, type, subject, user_id: userId, data, created_at: createdAt }),
)

export async function insertChangeEvent(db: Executor, row: NewChangeEventRow): Promise<void> {
  await preparedInsertChangeEvent(db, row.message_id, row.type, row.subject, row.user_id, row.data, row.created_at)
}

/** Locks up to `limit` unforwarded events, oldest first (inside a transaction). */
export function lockUnforwarded(db: Executor, limit: number): Promise<ChangeEventRow[]> {
  return db
    .selectFrom('change_events')
    .selectAll()
    .where('forwarded', '=', 0)
    .orderBy('id')
    .limit(limit)
    .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked())
    .execute()
}

export async function markForwarded(db: Executor, ids: number[]): Promise<void> {
  if (ids.length > 0) await db.updateTable('change_events').set({ forwarded: 1 }).where('id', 'in', ids).execute()
}

/** Events written after `afterId`, oldest first. */
export function listEventsAfter(db: Executor, afterId: number, limit: number): Promise<ChangeEventRow[]> {
  return db.selectFrom('change_events').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute()
}

export function listEventsByIds(db: Executor, ids: number[]): Promise<ChangeEventRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('change_events').selectAll().where('id', 'in', ids).orderBy('id').execute()
}

/** The oldest event still kept, undefined when there is none. */
export async function oldestEventId(db: Executor): Promise<number | undefined> {
  const row = await db.selectFrom('change_events').select((eb) => eb.fn.min('id').as('id')).executeTakeFirst()
  return row?.id === null || row?.id === undefined ? undefined : Number(row.id)
}

/** The newest event's id, 0 when there is none. */
export async function latestEventId(db: Executor): Promise<number> {
  const row = await db.selectFrom('change_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst()
  return Number(row?.id ?? 0)
}

/**
 * Forwarded events older than `before` are gone (the realtime stream resumes only within the
 * retention window). The newest event always stays: a stream resuming after it can then tell
 * that nothing it missed was dropped.
 */
export async function deleteForwardedBefore(db: Executor, before: string): Promise<void> {
  const newest = await latestEventId(db)
  await db.deleteFrom('change_events').where('forwarded', '=', 1).where('created_at', '<', before).where('id', '<', newest).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const changeEventsFunctions = { insertChangeEvent, lockUnforwarded, markForwarded, listEventsAfter, listEventsByIds, oldestEventId, latestEventId, deleteForwardedBefore }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const changeEventsReadTargets: ReadTargets<typeof changeEventsFunctions> = {
  insertChangeEvent: 'write',
  lockUnforwarded: 'write',
  markForwarded: 'write',
  listEventsAfter: 'primary',
  listEventsByIds: 'primary',
  oldestEventId: 'primary',
  latestEventId: 'primary',
  deleteForwardedBefore: 'write',
}

export type ChangeEventsRepository = Repository<typeof changeEventsFunctions>
