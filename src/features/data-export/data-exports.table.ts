// The data-export slice's table (migration 2026-12-05-01-data-exports).
import type { Generated } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface DataExportsTable {
  id: Generated<number>
  user_id: number
  /** queued, building, ready or failed. */
  status: string
  items_written: Generated<number>
  storage_key: string | null
  size: number | string | null
  attempts: Generated<number>
  /** Epoch ms. */
  next_attempt_at: number | string
  claimed_by: string | null
  /** Epoch ms. */
  claimed_until: number | string | null
  created_at: Timestamp
  finished_at: NullableTimestamp
  expires_at: NullableTimestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    data_exports: DataExportsTable
  }
}
