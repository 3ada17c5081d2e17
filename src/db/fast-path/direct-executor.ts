// Prepared queries (prepared.ts) skip Kysely's pipeline where the driver allows: SQLite runs a
// statement at once, or once the transaction holding its connection ends; PostgreSQL hands it
// straight to the pool. Transactions (`trx`) have no direct executor and always go through Kysely.

export interface DirectExecutor {
  /**
   * Runs the statement and gives its rows (SQLite, when its connection is free) or a promise of
   * them (PostgreSQL; SQLite after the transaction holding the connection), or undefined when
   * it must go through Kysely. With `singleRow`, a read may stop at its first row.
   */
  runNow<R>(sql: string, parameters: readonly unknown[], singleRow?: boolean): R[] | Promise<R[]> | undefined
}

const directExecutors = new WeakMap<object, DirectExecutor>()

/** Lets preparedQuery run on `db` (the Kysely instance itself, not a transaction) directly. */
export function registerDirectExecutor(db: object, executor: DirectExecutor): void {
  directExecutors.set(db, executor)
}

export function directExecutorFor(db: object): DirectExecutor | undefined {
  return directExecutors.get(db)
}
