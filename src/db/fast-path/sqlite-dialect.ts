// Kysely's better-sqlite3 dialect with four changes that matter under concurrent load:
// - the single connection is handed from one query to the next through a FIFO queue; Kysely's
//   own mutex wakes every waiter on each release, which costs O(waiters) per query;
// - prepared statements are kept by their SQL text instead of being prepared for every query;
// - a direct path (runNow) for precompiled queries: better-sqlite3 is synchronous, so a
//   statement runs at once, or after the transaction that holds the connection, without
//   Kysely's async pipeline (which costs more than the SQLite lookup itself);
// - parameters are written `+?`, so that a statement's plan never depends on the values bound
//   to it (StablePlanQueryCompiler below).
// Transactions still hold the connection from BEGIN to COMMIT, so they never interleave.
import type SqliteDatabase from 'better-sqlite3'
import type { DatabaseConnection, Driver, QueryCompiler, QueryResult } from 'kysely'
import { CompiledQuery, SqliteDialect, SqliteQueryCompiler } from 'kysely'

import type { DirectExecutor } from './direct-executor.js'

// Our queries have a bounded set of shapes; the cap only guards against unbounded distinct SQL.
const STATEMENT_CACHE_LIMIT = 1000

/**
 * A unit of work takes the write lock when it begins, waiting its turn (busy_timeout) as a write
 * does. A unit begun as a reader (plain BEGIN) that writes after another process has committed
 * cannot take the lock at all on a WAL database (SQLITE_BUSY_SNAPSHOT, answered 503): an edit
 * reads its post before changing it. Within one process units already run one at a time.
 */
export const BEGIN_UNIT = 'begin immediate'

class FifoLock {
  locked = false
  private readonly waiters: (() => void)[] = []

  acquire(): Promise<void> | void {
    if (!this.locked) {
      this.locked = true
      return
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.locked = false
  }
}

class CachedStatementConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SqliteDatabase.Statement>()

  constructor(private readonly sqlite: SqliteDatabase.Database) {}

  prepare(sql: string): SqliteDatabase.Statement {
    let statement = this.statements.get(sql)
    if (statement === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_LIMIT) this.statements.clear()
      statement = this.sqlite.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.prepare(compiledQuery.sql)
    const parameters = compiledQuery.parameters as unknown[]
    if (statement.reader) return { rows: statement.all(parameters) as R[] }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by this SQLite driver')
  }
}

class QueuedSqliteDriver implements Driver, DirectExecutor {
  private readonly lock = new FifoLock()
  private readonly connection: CachedStatementConnection

  constructor(private readonly sqlite: SqliteDatabase.Database) {
    this.connection = new CachedStatementConnection(sqlite)
  }

  /**
   * Runs the statement now or, while a transaction holds the connection, as soon as the
   * connection is free: waiting in the lock's queue costs a promise, where Kysely's pipeline
   * would also build a connection provider and an executor chain for the statement.
   */
  runNow<R>(sql: string, parameters: readonly unknown[], singleRow = false): R[] | Promise<R[]> {
    if (this.lock.locked) return this.whenFree(sql, parameters, singleRow)
    return this.run(sql, parameters, singleRow)
  }

  private async whenFree<R>(sql: string, parameters: readonly unknown[], singleRow: boolean): Promise<R[]> {
    await this.lock.acquire()
    try {
      return this.run(sql, parameters, singleRow)
    } finally {
      this.lock.release()
    }
  }

  private run<R>(sql: string, parameters: readonly unknown[], singleRow: boolean): R[] {
    const statement = this.connection.prepare(sql)
    if (singleRow && statement.readonly) {
      const row = statement.get(parameters as unknown[]) as R | undefined
      return row === undefined ? [] : [row]
    }
    if (statement.reader) return statement.all(parameters as unknown[]) as R[]
    statement.run(parameters as unknown[])
    return []
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock.acquire()
    return this.connection
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(BEGIN_UNIT))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async releaseConnection(): Promise<void> {
    this.lock.release()
  }

  async destroy(): Promise<void> {
    this.sqlite.close()
  }
}

/**
 * Writes each parameter as `+?` instead of `?`. SQLite looks at the value bound to a bare
 * parameter while it plans: for a LIMIT (from 3.47), and, with the STAT4 samples that ANALYZE or
 * `PRAGMA optimize` leave (better-sqlite3 builds with SQLITE_ENABLE_STAT4), for an equality on
 * an indexed column whenever the full planner runs (joins, several candidate indexes). Such a
 * statement is marked to be prepared again each time a value is bound to that parameter, so
 * every run parsed and planned it anew, most of a user lookup's cost (docs/performance.md). The
 * unary plus leaves the value as it is and hides it from the planner, which then plans once,
 * as SQLITE_DBCONFIG_ENABLE_QPSG would have it (better-sqlite3 does not expose sqlite3_db_config).
 */
export class StablePlanQueryCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?'
  }
}

export class QueuedSqliteDialect extends SqliteDialect {
  /** The driver behind the Kysely instance, for its direct path. */
  readonly driver: QueuedSqliteDriver

  constructor(sqlite: SqliteDatabase.Database) {
    super({ database: sqlite })
    this.driver = new QueuedSqliteDriver(sqlite)
  }

  override createDriver(): Driver {
    return this.driver
  }

  override createQueryCompiler(): QueryCompiler {
    return new StablePlanQueryCompiler()
  }
}

/** Kysely's own SQLite dialect (the path without the speed layer), its units begun as above. */
export class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver()
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw(BEGIN_UNIT))
    }
    return driver
  }
}
