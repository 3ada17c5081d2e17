// Transactions through one door. A service that must change several things at once runs them
// in `unitOfWork.run(async (unit) => …)`: its own repository joins with `repository.in(unit)`,
// and another feature joins through a direct call that takes the unit (`mail.queue(unit, …)`,
// `securityEvents.record(…, { unit })`), never the transaction itself. The unit
// commits when the function resolves and rolls back when it throws; what `afterCommit` hands it
// runs only once it has committed. Prepared queries never take their direct path inside it
// (src/db/fast-path: a transaction has no direct executor).
import type { Kysely } from 'kysely'

import { noteWrite } from './replicas/request-reads.js'
import type { Database, Executor } from './schema.js'

const EXECUTOR = Symbol('executor')
const AFTER_COMMIT = Symbol('afterCommit')

/** An open transaction, opaque outside src/db: pass it to a repository's `in()`. */
export interface Unit {
  readonly [EXECUTOR]: Executor
  readonly [AFTER_COMMIT]: (() => void)[]
}

export function executorOf(unit: Unit): Executor {
  return unit[EXECUTOR]
}

/** Runs `then` once the unit has committed (never when it rolls back), e.g. to wake a dispatcher. */
export function afterCommit(unit: Unit, then: () => void): void {
  unit[AFTER_COMMIT].push(then)
}

export class UnitOfWork {
  constructor(private readonly db: Kysely<Database>) {}

  async run<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    // With read replicas, the request reads the primary from here on (src/db/replicas/request-reads.ts).
    noteWrite()
    const committed: (() => void)[] = []
    const result = await this.db.transaction().execute((trx) => work({ [EXECUTOR]: trx, [AFTER_COMMIT]: committed }))
    for (const then of committed) then()
    return result
  }
}
