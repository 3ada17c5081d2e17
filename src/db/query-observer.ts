// Lets tracing see every query, both those Kysely runs and the precompiled ones the SQLite
// driver runs directly. Nothing is observed (and nothing timed) unless an observer is set.
import { performance } from 'node:perf_hooks'

/** `startedAt` in milliseconds since the epoch. */
export type QueryObserver = (sql: string, startedAt: number, durationMs: number, error?: unknown) => void

const observers = new WeakMap<object, QueryObserver>()
let observing = false

export function observeQueries(db: object, observer: QueryObserver): void {
  observers.set(db, observer)
  observing = true
}

export function queryObserverOf(db: object): QueryObserver | undefined {
  return observing ? observers.get(db) : undefined
}

/**
 * Runs `query`, reporting it to the observer when there is one (an undefined result means it did
 * not run). A query that answers with a promise (PostgreSQL) is reported when it settles.
 */
export function observed<T>(observer: QueryObserver | undefined, sql: string, query: () => T): T {
  if (!observer) return query()
  const start = performance.now()
  const report = (error?: unknown) => observer(sql, performance.timeOrigin + start, performance.now() - start, error)
  try {
    const result = query()
    if (result instanceof Promise) {
      return result.then(
        (rows: unknown) => {
          report()
          return rows
        },
        (error: unknown) => {
          report(error)
          throw error
        },
      ) as T
    }
    if (result !== undefined) report()
    return result
  } catch (error) {
    report(error)
    throw error
  }
}
