import { toIsoString } from '../../shared/timestamps.js'
import type { TierRow } from './tiers.repository.js'

/** A subscription tier as services take and return it. */
export interface Tier {
  id: number
  name: string
  createdAt: string
  /** Null: the default quota. */
  storageBytes: number | null
  storageFiles: number | null
}

export const toTier = (row: TierRow): Tier => ({
  id: row.id,
  name: row.name,
  createdAt: toIsoString(row.created_at),
  storageBytes: row.storage_bytes === null ? null : Number(row.storage_bytes),
  storageFiles: row.storage_files,
})
