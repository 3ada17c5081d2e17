import { PostgresAdapter } from 'kysely'

import type { Executor } from './schema.js'

/** Where a repository needs dialect-specific SQL (index-backed search, row locks). */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
