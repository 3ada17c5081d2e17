// The only place tier SQL lives; returns rows of the tiers table.
import type { Selectable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { TiersTable } from './tiers.table.js'

export type TierRow = Selectable<TiersTable>

const COLUMNS = ['id', 'name', 'created_at', 'storage_bytes', 'storage_files'] as const

export function listTiers(db: Executor): Promise<TierRow[]> {
  return db.selectFrom('tiers').select(COLUMNS).orderBy('id').execute()
}

export function findTierById(db: Executor, id: number): Promise<TierRow | undefined> {
  return db.selectFrom('tiers').select(COLUMNS).where('id', '=', id).executeTakeFirst()
}

export function findTierByName(db: Executor, name: string): Promise<TierRow | undefined> {
  return db.selectFrom('tiers').select(COLUMNS).where('name', '=', name).executeTakeFirst()
}

export interface TierQuota {
  storage_bytes?: number | null
  storage_files?: number | null
}

export function insertTier(db: Executor, name: string, quota: TierQuota = {}): Promise<TierRow> {
  return db.insertInto('tiers').values({ name, created_at: nowIso(), ...quota }).returning(COLUMNS).executeTakeFirstOrThrow()
}

export function updateTierQuota(db: Executor, id: number, quota: TierQuota): Promise<TierRow | undefined> {
  return db.updateTable('tiers').set(quota).where('id', '=', id).returning(COLUMNS).executeTakeFirst()
}

/** Users on the tier fall back to none (the foreign key sets their tier_id to null). */
export async function deleteTier(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('tiers').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const tiersFunctions = { listTiers, findTierById, findTierByName, insertTier, updateTierQuota, deleteTier }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const tiersReadTargets: ReadTargets<typeof tiersFunctions> = {
  listTiers: 'primary',
  findTierById: 'primary',
  findTierByName: 'primary',
  insertTier: 'write',
  updateTierQuota: 'write',
  deleteTier: 'write',
}

export type TiersRepository = Repository<typeof tiersFunctions>
