// Reads the trigger-maintained totals of live rows (migration 2026-11-21-05-row-counts).
import { sql } from 'kysely'

import { preparedQuery } from './fast-path/prepared.js'
import type { Executor } from './schema.js'

export type CountedTable = 'users' | 'posts' | 'listed_posts'

/** Prepared: read on every unfiltered list. */
export const preparedLiveRowTotal = preparedQuery(
  1,
  (db, table: CountedTable) =>
    db
      .selectFrom('row_counts')
      .select(sql<number | string | null>`sum(count)`.as('count'))
      .where('name', '=', table),
  { singleRow: true },
)

export async function liveRowCount(db: Executor, table: CountedTable): Promise<number> {
  const [row] = await preparedLiveRowTotal(db, table)
  return Number(row?.count ?? 0)
}
