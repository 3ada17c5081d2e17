// The only place security-event SQL lives.
import type { Insertable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { SecurityEventFilter } from './security-event.js'
import type { SecurityEventRow, SecurityEventsTable } from './security-events.table.js'


export async function insertSecurityEvent(db: Executor, row: Insertable<SecurityEventsTable>): Promise<void> {
  await db.insertInto('security_events').values(row).execute()
}

function filtered(db: Executor, filter: SecurityEventFilter) {
  return db
    .selectFrom('security_events')
    .$if(filter.userId !== undefined, (qb) => qb.where('user_id', '=', filter.userId ?? 0))
    .$if(filter.orgId !== undefined, (qb) => qb.where('org_id', '=', filter.orgId ?? 0))
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

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const securityEventsFunctions = { insertSecurityEvent, listSecurityEvents, countSecurityEvents, deleteSecurityEventsBefore }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const securityEventsReadTargets: ReadTargets<typeof securityEventsFunctions> = {
  insertSecurityEvent: 'write',
  listSecurityEvents: 'primary',
  countSecurityEvents: 'primary',
  deleteSecurityEventsBefore: 'write',
}

export type SecurityEventsRepository = Repository<typeof securityEventsFunctions>
