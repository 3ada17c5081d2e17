// The overview's reads: the trigger-maintained totals of live rows (migration
// 2026-11-21-05-row-counts) and per UTC day (2026-11-22-04-admin-overview: sign-ups and
// successful logins), and which database answers.
import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import { liveRowCount } from '../../db/row-counts.js'
import type { Executor } from '../../db/schema.js'
import type { DailyCountsTable } from './overview.table.js'

export interface DayCount {
  /** YYYY-MM-DD, UTC. */
  day: string
  count: number
}

/** The days from `since` (YYYY-MM-DD) on that have a count; days without one had none. */
export async function dailyCounts(db: Executor, name: DailyCountsTable['name'], since: string): Promise<DayCount[]> {
  const rows = await db.selectFrom('daily_counts').select(['day', 'count']).where('name', '=', name).where('day', '>=', since).execute()
  return rows.map((row) => ({ day: row.day, count: Number(row.count) }))
}

export function liveUserCount(db: Executor): Promise<number> {
  return liveRowCount(db, 'users')
}

export function livePostCount(db: Executor): Promise<number> {
  return liveRowCount(db, 'posts')
}

export function databaseDialect(db: Executor): 'postgres' | 'sqlite' {
  return isPostgres(db) ? 'postgres' : 'sqlite'
}

/** This feature's data access for its service, bound to the database (src/db/repository.ts). */
export const overviewFunctions = { dailyCounts, liveUserCount, livePostCount, databaseDialect }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const overviewReadTargets: ReadTargets<typeof overviewFunctions> = {
  dailyCounts: 'replica',
  liveUserCount: 'replica',
  livePostCount: 'replica',
  databaseDialect: 'primary',
}

export type OverviewRepository = Repository<typeof overviewFunctions>
