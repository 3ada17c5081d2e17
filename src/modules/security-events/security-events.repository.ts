// The only place security-event SQL lives.
import type { Insertable, Selectable } from 'kysely'
import type { Executor, SecurityEventsTable } from '../../db/schema.js'
import { toDayCounts, utcDay } from '../../db/utc-day.js'
import type { DayCount } from '../../db/utc-day.js'
import type { SecurityEventFilter, SecurityEventType } from './security-event.js'

export type SecurityEventRow = Selectable<SecurityEventsTable>

export async function insertSecurityEvent(db: Executor, row: Insertable<SecurityEventsTable>): Promise<void> {
  await db.insertInto('security_events').values(row).execute()
}

function filtered(db: Executor, filter: SecurityEventFilter) {
  return db
    .selectFrom('security_events')
    .$if(filter.userId !== undefined, (qb) => qb.where('user_id', '=', filter.userId ?? 0))
    .$if(filter.type !== undefined, (qb) => qb.where('type', '=', filter.type ?? ''))
}

/** Newest first. */
export function listSecurityEvents(db: Executor, filter: SecurityEventFilter, offset: number, limit: number): Promise<SecurityEventRow[]> {
  return filtered(db, filter).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute()
}

export async function countSecurityEvents(db: Executor, filter: SecurityEventFilter): Promise<number> {
  const { count } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function deleteSecurityEventsBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('security_events').where('created_at', '<', before).execute()
}

/** Events of one type per UTC day since `since` (served by the created_at index). */
export async function countSecurityEventsByDay(db: Executor, type: SecurityEventType, since: string): Promise<DayCount[]> {
  const day = utcDay(db, 'created_at')
  const rows = await db
    .selectFrom('security_events')
    .select([day.as('day'), (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('created_at', '>=', since)
    .where('type', '=', type)
    .groupBy(day)
    .execute()
  return toDayCounts(rows)
}
