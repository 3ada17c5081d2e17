import type { Executor } from '../../db/schema.js'
import { nowIso, toIsoString } from '../../shared/time.js'

export interface TierRecord {
  id: number
  name: string
  created_at: string
}

const toTierRecord = (row: { id: number; name: string; created_at: Date | string }): TierRecord => ({
  id: row.id,
  name: row.name,
  created_at: toIsoString(row.created_at),
})

export async function listTiers(db: Executor): Promise<TierRecord[]> {
  const rows = await db.selectFrom('tiers').select(['id', 'name', 'created_at']).orderBy('id').execute()
  return rows.map(toTierRecord)
}

export async function findTierById(db: Executor, id: number): Promise<TierRecord | undefined> {
  const row = await db.selectFrom('tiers').select(['id', 'name', 'created_at']).where('id', '=', id).executeTakeFirst()
  return row && toTierRecord(row)
}

export async function findTierByName(db: Executor, name: string): Promise<TierRecord | undefined> {
  const row = await db.selectFrom('tiers').select(['id', 'name', 'created_at']).where('name', '=', name).executeTakeFirst()
  return row && toTierRecord(row)
}

export async function insertTier(db: Executor, name: string): Promise<TierRecord> {
  const row = await db
    .insertInto('tiers')
    .values({ name, created_at: nowIso() })
    .returning(['id', 'name', 'created_at'])
    .executeTakeFirstOrThrow()
  return toTierRecord(row)
}

/** Users on the tier fall back to none (the foreign key sets their tier_id to null). */
export async function deleteTier(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('tiers').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}
