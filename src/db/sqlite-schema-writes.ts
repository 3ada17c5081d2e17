// SQLite cannot change a table's CHECK constraint by ALTER TABLE. Its documentation gives the
// way for a change that leaves every stored row valid (loosening a CHECK): rewrite the table's
// statement in sqlite_schema and bump schema_version, in one transaction. better-sqlite3 opens
// connections in defensive mode, which forbids that write, so migrations run with it lifted on
// the connection they run on, and only while they run.
import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { sql } from 'kysely'

const connections = new WeakMap<object, Database.Database>()

/** Remembers the SQLite connection under a database handle, for migrateToLatest. */
export function registerSqliteConnection(db: object, sqlite: Database.Database): void {
  connections.set(db, sqlite)
}

/** Runs `migrate` with the handle's SQLite connection (if it has one) out of defensive mode. */
export async function withSchemaWrites<T>(db: object, migrate: () => Promise<T>): Promise<T> {
  const sqlite = connections.get(db)
  sqlite?.unsafeMode(true)
  try {
    return await migrate()
  } finally {
    sqlite?.unsafeMode(false)
  }
}

/**
 * Replaces `from` by `to` in a table's CREATE statement, inside the migration's transaction: only
 * for a change every stored row already satisfies (the documented "simpler procedure" of
 * https://www.sqlite.org/lang_altertable.html#otheralter). Fails when the text is not there.
 */
export async function rewriteSqliteTable<DB>(db: Kysely<DB>, table: string, from: string, to: string): Promise<void> {
  const { rows } = await sql<{ schema_version: number }>`pragma schema_version`.execute(db)
  await sql`pragma writable_schema = on`.execute(db)
  try {
    const result = await sql`update sqlite_schema set sql = replace(sql, ${from}, ${to}) where type = 'table' and name = ${table} and instr(sql, ${from}) > 0`.execute(db)
    if (Number(result.numAffectedRows ?? 0) !== 1) throw new Error(`The CREATE statement of ${table} has no "${from}"`)
    await sql.raw(`pragma schema_version = ${Number(rows[0]!.schema_version) + 1}`).execute(db)
  } finally {
    await sql`pragma writable_schema = off`.execute(db)
  }
}
