// Soft deletion, the same for every table that has it: the row stays, marked deleted, and
// every read leaves it out.
import { nowIso } from '../shared/timestamps.js'
import type { Executor } from './schema.js'

export type SoftDeletableTable = 'users' | 'posts'

/** Marks a live row deleted; false when there is no live row with that id. */
export async function softDeleteRow(db: Executor, table: SoftDeletableTable, id: number): Promise<boolean> {
  const now = nowIso()
  const result = await db
    .updateTable(table)
    .set({ is_deleted: 1, deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
