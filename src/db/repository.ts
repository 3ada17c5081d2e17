// How a module's data access reaches services: its repository functions take the executor (the
// database, or a transaction) first; `repository()` binds them, so a service calls
// `this.repository.findUserById(id)` and never holds an executor. `in(unit)` gives the same
// functions bound to a unit of work's transaction (src/db/unit-of-work.ts).
import type { Executor } from './schema.js'
import type { Unit } from './unit-of-work.js'
import { executorOf } from './unit-of-work.js'

// The functions' own parameter types are kept by the mapped type below; `any` only spells "any function".
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RepositoryFunction = (db: Executor, ...args: any[]) => unknown

type BoundFunctions<Functions extends Record<string, RepositoryFunction>> = {
  readonly [Name in keyof Functions]: Functions[Name] extends (db: Executor, ...args: infer Args) => infer Result ? (...args: Args) => Result : never
}

export type Repository<Functions extends Record<string, RepositoryFunction>> = BoundFunctions<Functions> & {
  /** The same functions, inside a unit of work's transaction. */
  in(unit: Unit): Repository<Functions>
}

/** Binds a module's repository functions to `db`. */
export function bindRepository<Functions extends Record<string, RepositoryFunction>>(functions: Functions, db: Executor): Repository<Functions> {
  const bound: Record<string, unknown> = {
    in: (unit: Unit) => bindRepository(functions, executorOf(unit)),
  }
  for (const [name, run] of Object.entries(functions)) bound[name] = (...args: unknown[]) => run(db, ...args)
  return bound as Repository<Functions>
}
