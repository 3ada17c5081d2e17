// Owns the Kysely instance and the choice of dialect: SQLite (better-sqlite3, WAL) in the data
// directory by default, PostgreSQL through `pg` when DATABASE_URL is set.
import path from 'node:path'

import type { KyselyConfig } from 'kysely'
import { Kysely, PostgresDialect } from 'kysely'

import { registerDirectExecutor } from './fast-path/direct-executor.js'
import { usePlainPath } from './fast-path/prepared.js'
import { ImmediateSqliteDialect, QueuedSqliteDialect } from './fast-path/sqlite-dialect.js'
import { keepDataDirPrivate } from './private-data-dir.js'
import { queryObserverOf } from './query-observer.js'
import { registerReadWorker, SqliteReadWorker } from './read-worker.js'
import type { Database } from './schema.js'
import SqliteDatabase from './sqlite-driver.js'
import { registerSqliteConnection } from './sqlite-schema-writes.js'

export type DialectName = 'sqlite' | 'postgres'

export interface DatabaseHandle {
  db: Kysely<Database>
  dialect: DialectName
  /** Where the data lives, for logs: a file path or a URL without its password. */
  location: string
  /** PostgreSQL's connection pool right now (for metrics); undefined for SQLite. */
  poolStats?: () => { total: number; idle: number; waiting: number }
  close(): Promise<void>
}

export interface DatabaseOptions {
  databaseUrl: string | undefined
  dataDir: string
  /** PostgreSQL: connections in the pool (default 10). */
  poolMax?: number
  /** PostgreSQL: statement_timeout sent as a startup parameter; 0 sends none (a pooler such as PgBouncer refuses unknown startup parameters). */
  statementTimeoutMs?: number
  /**
   * The speed layer (src/db/fast-path, on by default): prepared queries compiled once and run
   * past Kysely's pipeline, SQLite's queued dialect, PostgreSQL timestamps read as text. Off,
   * every query goes through Kysely's stock dialects (the plain path the tests also run).
   */
  fastPath?: boolean
  /** Report every query to an observer set later (tracing); off, Kysely times nothing. */
  observable?: boolean
  /** Receives errors of idle pooled connections (e.g. the server restarted); they must not crash the process. */
  onPoolError?: (error: Error) => void
}

export const SQLITE_FILE_NAME = 'app.db'

export async function createDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  keepDataDirPrivate(options.dataDir)
  return options.databaseUrl ? createPostgres(options.databaseUrl, options) : createSqlite(options.dataDir, options)
}

/** Kysely's log option, forwarding each query to the database's observer (query-observer.ts). */
function queryLog(options: DatabaseOptions, db: () => object): KyselyConfig['log'] {
  if (!options.observable) return undefined
  return (event) => {
    const observer = queryObserverOf(db())
    const { sql } = event.query
    observer?.(sql, Date.now() - event.queryDurationMillis, event.queryDurationMillis, event.level === 'error' ? event.error : undefined)
  }
}

function createSqlite(dataDir: string, options: DatabaseOptions): DatabaseHandle {
  const file = path.join(dataDir, SQLITE_FILE_NAME)
  const sqlite = new SqliteDatabase(file)
  // WAL lets readers run beside the writer; NORMAL sync in WAL mode survives a killed
  // process (only an OS crash can lose the last commits); busy_timeout absorbs short locks
  // held by other processes on the same file. better-sqlite3 waits synchronously, so the
  // timeout is kept short: a database locked for longer answers 503 rather than stall the loop.
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 1000')
  const reads = new SqliteReadWorker(file)
  const close = async (db: Kysely<Database>) => {
    await reads.close()
    await db.destroy()
  }
  if (options.fastPath === false) {
    const db: Kysely<Database> = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }), log: queryLog(options, () => db) })
    usePlainPath(db)
    registerReadWorker(db, reads)
    registerSqliteConnection(db, sqlite)
    return { db, dialect: 'sqlite', location: file, close: () => close(db) }
  }
  const dialect = new QueuedSqliteDialect(sqlite)
  const db: Kysely<Database> = new Kysely<Database>({ dialect, log: queryLog(options, () => db) })
  registerDirectExecutor(db, dialect.driver)
  registerReadWorker(db, reads)
  registerSqliteConnection(db, sqlite)
  return { db, dialect: 'sqlite', location: file, close: () => close(db) }
}

async function createPostgres(databaseUrl: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const { onPoolError, poolMax = 10, statementTimeoutMs = 30_000 } = options
  // Loaded only when configured: the driver costs memory that SQLite-only servers do not need.
  const [{ default: pg }, { postgresTypes }] = await Promise.all([import('pg'), import('./fast-path/pg-timestamps.js')])
  // Nothing here relies on a connection's session (no named prepared statements, no SET, no
  // advisory lock outside a transaction, no LISTEN), so the URL may point at PgBouncer in
  // transaction mode.
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolMax,
    // Fail fast while the server is down so callers get a 503 instead of hanging.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    ...(options.fastPath === false ? {} : { types: postgresTypes }),
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
  })
  // An idle pooled connection that breaks is reported through the pool; one that breaks while
  // checked out between queries reports on itself. Either must only be logged: the next
  // query fails (503) and the pool reconnects.
  pool.on('error', (error) => onPoolError?.(error))
  pool.on('connect', (client) => client.on('error', (error) => onPoolError?.(error)))
  const db: Kysely<Database> = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: queryLog(options, () => db) })
  // Prepared queries go straight to the pool: Kysely's connection provider, query id and result
  // pipeline cost more CPU than pg's own pool.query for the same statement. (prepared.ts builds
  // a fresh parameter array for every run, so it is passed as it is.)
  if (options.fastPath === false) usePlainPath(db)
  else registerDirectExecutor(db, { runNow: async <R>(sql: string, parameters: readonly unknown[]) => (await pool.query(sql, parameters as unknown[])).rows as R[] })
  const url = new URL(databaseUrl)
  url.password = url.password ? '***' : ''
  return {
    db,
    dialect: 'postgres',
    location: url.toString(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  }
}
