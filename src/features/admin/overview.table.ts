// Trigger-maintained totals the overview reads.
import type { ColumnType } from 'kysely'

/** Trigger-maintained totals per UTC day (migration 2026-11-22-04-admin-overview). */
export interface DailyCountsTable {
  name: 'sign_ups' | 'logins' | 'captcha_failures' | 'breached_passwords' | 'blocked_domains'
  /** YYYY-MM-DD, UTC. */
  day: string
  count: ColumnType<number | string, number, number>
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    daily_counts: DailyCountsTable
  }
}
