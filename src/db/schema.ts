// The database as Kysely sees it: the core's own table here, and each slice's tables added to this
// interface beside their row types (src/features/<name>/*.table.ts, `declare module`), so a new
// slice's tables need no line here. Shared column types are in column-types.ts.
import type { ColumnType, Kysely, Transaction } from 'kysely'

/** Trigger-maintained totals of live rows (migration 2026-11-21-05-row-counts), read by every module that counts. */
export interface RowCountsTable {
  name: string
  shard: number
  count: ColumnType<number | string, number, number>
}

export interface Database {
  row_counts: RowCountsTable
}

/** What repositories take as their first argument: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>
