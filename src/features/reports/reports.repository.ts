// The reports slice's SQL.
import { sql } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { RowWindow } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { ReportRow } from './reports.table.js'

export interface NewReportRow {
  reporter_id: number
  target: string
  target_id: number
  target_owner_id: number
  org_id: number | null
  reason: string
  note: string | null
}

/** The new report; undefined when the reporter has an open one on this target already (the partial unique index decides, across processes). */
export function insertReport(db: Executor, report: NewReportRow): Promise<ReportRow | undefined> {
  return db
    .insertInto('reports')
    .values({ ...report, created_at: nowIso() })
    // The index's own predicate, as a literal: SQLite matches an upsert to a partial index only by its text.
    .onConflict((oc) => oc.columns(['reporter_id', 'target', 'target_id']).where(sql<boolean>`status = 'open'`).doNothing())
    .returningAll()
    .executeTakeFirst()
}

export function findReport(db: Executor, id: number): Promise<ReportRow | undefined> {
  return db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst()
}

interface QueueFilter {
  status: string
  /** An organization's queue; every report otherwise. */
  orgId?: number
}

function queue(db: Executor, filter: QueueFilter) {
  return db
    .selectFrom('reports')
    .where('status', '=', filter.status)
    .$if(filter.orgId !== undefined, (qb) => qb.where('org_id', '=', filter.orgId ?? 0))
}

/** A page of the queue, oldest first. */
export function queuePage(db: Executor, filter: QueueFilter, { offset, limit, after }: RowWindow): Promise<ReportRow[]> {
  return queue(db, filter)
    .selectAll()
    .$if(after !== undefined, (qb) => qb.where('id', '>', after ?? 0))
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
}

export async function countQueue(db: Executor, filter: QueueFilter): Promise<number> {
  const row = await queue(db, filter).select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Who reported the target while their report is open. */
export async function openReportersOn(db: Executor, target: string, targetId: number): Promise<number[]> {
  const rows = await db.selectFrom('reports').select('reporter_id').where('target', '=', target).where('target_id', '=', targetId).where('status', '=', 'open').execute()
  return rows.map((row) => Number(row.reporter_id))
}

/** Resolves every open report on the target at once; the reports it resolved. */
export function resolveOpenOn(db: Executor, target: string, targetId: number, resolution: { status: string; action: string; resolved_by: number }): Promise<ReportRow[]> {
  return db
    .updateTable('reports')
    .set({ ...resolution, resolved_at: nowIso() })
    .where('target', '=', target)
    .where('target_id', '=', targetId)
    .where('status', '=', 'open')
    .returningAll()
    .execute()
}

/** A reporter's reports, oldest first, after the id `after`: their data export's pages. */
export function reportsOfAfter(db: Executor, reporterId: number, after: number, limit: number): Promise<ReportRow[]> {
  return db.selectFrom('reports').selectAll().where('reporter_id', '=', reporterId).where('id', '>', after).orderBy('id').limit(limit).execute()
}

export const reportsFunctions = { openReportersOn, insertReport, findReport, queuePage, countQueue, resolveOpenOn, reportsOfAfter }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const reportsReadTargets: ReadTargets<typeof reportsFunctions> = {
  openReportersOn: 'primary',
  insertReport: 'write',
  findReport: 'primary',
  queuePage: 'write',
  countQueue: 'primary',
  resolveOpenOn: 'write',
  reportsOfAfter: 'primary',
}

export type ReportsRepository = Repository<typeof reportsFunctions>
