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

/** Runs `query`, reporting it to the observer when there is one (an undefined result means it did not run). */
export function observed<T>(observer: QueryObserver | undefined, sql: string, query: () => T): T {
  if (!observer) return query()
  const start = performance.now()
  try {
    const result = query()
    if (result !== undefined) observer(sql, performance.timeOrigin + start, performance.now() - start)
    return result
  } catch (error) {
    observer(sql, performance.timeOrigin + start, performance.now() - start, error)
    throw error
  }
}
