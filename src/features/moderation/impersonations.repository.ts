// SQL for support impersonations and the requests made in them.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export interface ImpersonationRow {
  id: string
  user_id: number
  superuser_id: number
  mode: string
  reason: string
  created_at: Date | string
  expires_at: Date | string
  ended_at: Date | string | null
}

export async function insertImpersonation(db: Executor, row: { id: string; userId: number; superuserId: number; mode: string; reason: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('impersonations')
    .values({ id: row.id, user_id: row.userId, superuser_id: row.superuserId, mode: row.mode, reason: row.reason, created_at: nowIso(), expires_at: row.expiresAt.toISOString() })
    .execute()
}

/** Marks a running impersonation ended, once; its row when this call ended it. */
export function endImpersonation(db: Executor, id: string): Promise<ImpersonationRow | undefined> {
  const now = nowIso()
  return db
    .updateTable('impersonations')
    .set({ ended_at: now })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst()
}

/** Ids of the impersonations a superuser started that still run. */
export async function runningImpersonationsBy(db: Executor, superuserId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('impersonations')
    .select('id')
    .where('superuser_id', '=', superuserId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .execute()
  return rows.map((row) => row.id)
}

export interface ImpersonationFilter {
  userId?: number
  superuserId?: number
}

const filtered = (db: Executor, filter: ImpersonationFilter) =>
  db
    .selectFrom('impersonations')
    .$if(filter.userId !== undefined, (qb) => qb.where('user_id', '=', filter.userId ?? 0))
    .$if(filter.superuserId !== undefined, (qb) => qb.where('superuser_id', '=', filter.superuserId ?? 0))

export function listImpersonations(db: Executor, filter: ImpersonationFilter, offset: number, limit: number): Promise<ImpersonationRow[]> {
  return filtered(db, filter).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute()
}

export async function countImpersonations(db: Executor, filter: ImpersonationFilter): Promise<number> {
  const { count } = await filtered(db, filter).select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(count)
}

export function findImpersonation(db: Executor, id: string): Promise<ImpersonationRow | undefined> {
  return db.selectFrom('impersonations').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertImpersonationRequest(db: Executor, row: { impersonationId: string; method: string; route: string; status: number }): Promise<void> {
  await db.insertInto('impersonation_requests').values({ impersonation_id: row.impersonationId, method: row.method, route: row.route.slice(0, 255), status: row.status, created_at: nowIso() }).execute()
}

export interface ImpersonationRequestRow {
  id: number
  method: string
  route: string
  status: number
  created_at: Date | string
}

export function listImpersonationRequests(db: Executor, impersonationId: string, offset: number, limit: number): Promise<ImpersonationRequestRow[]> {
  return db
    .selectFrom('impersonation_requests')
    .select(['id', 'method', 'route', 'status', 'created_at'])
    .where('impersonation_id', '=', impersonationId)
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
}

export async function countImpersonationRequests(db: Executor, impersonationId: string): Promise<number> {
  const { count } = await db
    .selectFrom('impersonation_requests')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('impersonation_id', '=', impersonationId)
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const impersonationsFunctions = {
  insertImpersonation,
  endImpersonation,
  runningImpersonationsBy,
  listImpersonations,
  countImpersonations,
  findImpersonation,
  insertImpersonationRequest,
  listImpersonationRequests,
  countImpersonationRequests,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const impersonationsReadTargets: ReadTargets<typeof impersonationsFunctions> = {
  insertImpersonation: 'write',
  endImpersonation: 'write',
  runningImpersonationsBy: 'primary',
  listImpersonations: 'primary',
  countImpersonations: 'primary',
  findImpersonation: 'primary',
  insertImpersonationRequest: 'write',
  listImpersonationRequests: 'primary',
  countImpersonationRequests: 'primary',
}

export type ImpersonationsRepository = Repository<typeof impersonationsFunctions>
