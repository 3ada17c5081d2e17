// Column helpers shared by migrations. Like the migrations themselves, keep this frozen:
// a change here would rewrite history for databases that already ran them.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { PostgresAdapter, sql } from 'kysely'

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** Auto-increment integer primary key that never reuses a freed id (ids are JWT subjects). */
export function idColumn(db: Kysely<any>) {
  return (col: ColumnDefinitionBuilder) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement()
}

export function timestampType(db: Kysely<any>) {
  return isPostgres(db) ? ('timestamptz' as const) : ('text' as const)
}

export function now(db: Kysely<any>) {
  return isPostgres(db) ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`
}

export function blobType(db: Kysely<any>) {
  return isPostgres(db) ? ('bytea' as const) : ('blob' as const)
}

/**
 * A record's custom fields (docs/api.md "Custom fields"): one JSON object, `{}` for every row so
 * far. jsonb on PostgreSQL, so a filter can reach a field; JSON text on SQLite, whose JSON
 * functions read text. A constant default adds the column without rewriting the table.
 */
export async function addFieldsColumn(db: Kysely<any>, table: string): Promise<void> {
  if (isPostgres(db)) await db.schema.alterTable(table).addColumn('fields', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`)).execute()
  else await db.schema.alterTable(table).addColumn('fields', 'text', (col) => col.notNull().defaultTo('{}')).execute()
}
