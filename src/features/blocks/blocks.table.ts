// The blocks slice's table.
import type { Timestamp } from '../../db/column-types.js'

export interface UserBlocksTable {
  blocker_id: number
  blocked_id: number
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    user_blocks: UserBlocksTable
  }
}
