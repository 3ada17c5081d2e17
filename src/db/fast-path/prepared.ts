// Hot paths run the same query shapes thousands of times a second; building and compiling a
// Kysely query costs several times more than SQLite takes to answer it. A prepared query is
// built and compiled once, with markers where the arguments go, then run with new arguments.
import type { Compilable, CompiledQuery } from 'kysely'

import { observed, queryObserverOf } from '../query-observer.js'
import type { Executor } from '../schema.js'
import { directExecutorFor } from './direct-executor.js'

/** Databases (by their adapter, which their transactions share) that run prepared queries the plain way: FAST_PATH=off. */
const plainPath = new WeakSet<object>()

/** Makes every prepared query on `db` (and its transactions) build and run through Kysely each time, like any other query. */
export function usePlainPath(db: Executor): void {
  plainPath.add(db.getExecutor().adapter)
}

/** Stands in for argument `index` while the query is compiled. */
class ArgumentMarker {
  constructor(readonly index: number) {}
}

export interface PreparedQuery<Args extends unknown[], Row> {
  (db: Executor, ...args: Args): Promise<Row[]>
  /** The plain query it was compiled from, to run the ordinary way (its twin in tests). */
  build: (db: Executor, ...args: Args) => Compilable<Row>
}

export interface PreparedQueryOptions {
  /**
   * The query finds one row at most (a lookup by key, an aggregate): SQLite stops at the first
   * row instead of stepping on to find that there is no second. Writes always step to the end:
   * SQLite checkpoints its WAL only when a statement finishes.
   */
  singleRow?: boolean
}

/**
 * `build` must give the same SQL whatever the arguments are: it may place them as values
 * (where, limit, offset) but never inspect them. Compiled once per dialect.
 */
export function preparedQuery<Args extends unknown[], Row>(
  arity: Args['length'],
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  { singleRow = false }: PreparedQueryOptions = {},
): PreparedQuery<Args, Row> {
  const compiledByAdapter = new WeakMap<object, { query: CompiledQuery<Row>; slots: (number | undefined)[] }>()
  const run = async (db: Executor, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter
    if (plainPath.has(adapter)) return (await db.executeQuery<Row>(build(db, ...args).compile())).rows
    let prepared = compiledByAdapter.get(adapter)
    if (prepared === undefined) {
      const markers = Array.from({ length: arity }, (_, index) => new ArgumentMarker(index)) as unknown as Args
      const query = build(db, ...markers).compile()
      const slots = query.parameters.map((parameter) => (parameter instanceof ArgumentMarker ? parameter.index : undefined))
      prepared = { query, slots }
      compiledByAdapter.set(adapter, prepared)
    }
    const { query, slots } = prepared
    const parameters = query.parameters.map((parameter, position) => {
      const slot = slots[position]
      return slot === undefined ? parameter : args[slot]
    })
    const direct = directExecutorFor(db)
    const observer = queryObserverOf(db)
    // Untraced (the usual case), no closure is made for the observer on this hot path.
    const rows =
      direct && (observer ? observed(observer, query.sql, () => direct.runNow<Row>(query.sql, parameters, singleRow)) : direct.runNow<Row>(query.sql, parameters, singleRow))
    if (rows !== undefined) return rows
    const result = await db.executeQuery<Row>({ ...query, parameters })
    return result.rows
  }
  return Object.assign(run, { build })
}
