// API keys, stored as SHA-256 hashes.
import type { Generated } from 'kysely'

import type { NullableTimestamp,Timestamp } from '../../db/column-types.js'

export interface ApiKeysTable {
  id: Generated<number>
  user_id: number
  name: string
  prefix: string
  key_hash: string
  scopes: string
  created_at: Timestamp
  expires_at: NullableTimestamp
  last_used_at: NullableTimestamp
  revoked_at: NullableTimestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    api_keys: ApiKeysTable
  }
}
