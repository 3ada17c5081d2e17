// The UTC calendar day (YYYY-MM-DD) of a timestamp column, for counts per day. SQLite keeps
// timestamps as ISO-8601 UTC text; PostgreSQL as timestamptz.
import { sql } from 'kysely'
import { isPostgres } from './dialect.js'
import type { Executor } from './schema.js'

export function utcDay(db: Executor, column: string) {
  return isPostgres(db)
    ? sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`
    : sql<string>`substr(${sql.ref(column)}, 1, 10)`
}

export interface DayCount {
  day: string
  count: number
}

export const toDayCounts = (rows: { day: string; count: number | string }[]): DayCount[] =>
  rows.map((row) => ({ day: row.day, count: Number(row.count) }))
