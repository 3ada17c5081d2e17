// The tiers table.
import type { ColumnType, Generated } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface TiersTable {
  id: Generated<number>
  name: string
  created_at: Timestamp
  /** Storage quota of the tier's users; null: the default (STORAGE_QUOTA_BYTES, STORAGE_QUOTA_FILES). bigint: a string from PostgreSQL. */
  storage_bytes: ColumnType<number | string | null, number | null | undefined, number | null>
  storage_files: number | null
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    tiers: TiersTable
  }
}
