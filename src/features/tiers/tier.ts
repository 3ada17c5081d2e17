import { toIsoString } from '../../shared/timestamps.js'
import type { TierRow } from './tiers.repository.js'

/** A subscription tier as services take and return it. */
export interface Tier {
  id: number
  name: string
  createdAt: string
}

export const toTier = (row: TierRow): Tier => ({ id: row.id, name: row.name, createdAt: toIsoString(row.created_at) })
