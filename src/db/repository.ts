// How a module's data access reaches services: its repository functions take the executor (the
// database, or a transaction) first; `repository()` binds them, so a service calls
// `this.repository.findUserById(id)` and never holds an executor. `in(unit)` gives the same
// functions bound to a unit of work's transaction (src/db/unit-of-work.ts). With read replicas,
// the functions a repository declares replica-safe (src/db/replicas/read-targets.ts) go through
// the replica set, which picks where each call runs; inside a unit they run on its transaction.
import type { ReadTargets } from './replicas/read-targets.js'
import type { ReplicaSet } from './replicas/replica-set.js'
import { noteWrite } from './replicas/request-reads.js'
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

/** Binds a module's repository functions to `db`; its replica-safe reads to `replicas`, when there are any. */
export function bindRepository<Functions extends Record<string, RepositoryFunction>>(
  functions: Functions,
  db: Executor,
  targets?: ReadTargets<Functions>,
  replicas?: ReplicaSet,
): Repository<Functions> {
  const bound: Record<string, unknown> = {
    in: (unit: Unit) => bindRepository(functions, executorOf(unit)),
  }
  for (const [name, run] of Object.entries(functions)) {
    const target = replicas === undefined ? undefined : targets?.[name]
    if (target === 'replica') bound[name] = (...args: unknown[]) => replicas!.read(async (executor) => run(executor, ...args))
    // A request that writes reads the primary from then on, and records its position when it answers.
    else if (target === 'write')
      bound[name] = (...args: unknown[]) => {
        noteWrite()
        return run(db, ...args)
      }
    else bound[name] = (...args: unknown[]) => run(db, ...args)
  }
  return bound as Repository<Functions>
}
