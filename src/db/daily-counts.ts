// Reads the trigger-maintained totals per UTC day (migration 2026-11-22-04-admin-overview):
// sign-ups (accounts created) and successful logins.
import type { DailyCountsTable, Executor } from './schema.js'

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
