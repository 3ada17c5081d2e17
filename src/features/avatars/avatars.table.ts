// Avatar images kept in the database (AVATAR_STORAGE=database).
import type { Timestamp } from '../../db/column-types.js'

export interface AvatarsTable {
  name: string
  content_type: string
  data: Buffer
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    avatars: AvatarsTable
  }
}
