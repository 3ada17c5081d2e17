// Rate-limit counters (fixed windows) and the tiers' rules.
import type { ColumnType, Generated } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface RateLimitsTable {
  key: string
  count: number
  /** Epoch milliseconds at which the window ends. */
  reset_at: ColumnType<number | string, number, number>
}

export interface RateLimitRulesTable {
  id: Generated<number>
  tier_id: number | null
  route: string
  limit_count: number
  period_seconds: number
  created_at: Timestamp
  updated_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    rate_limits: RateLimitsTable
    rate_limit_rules: RateLimitRulesTable
  }
}
