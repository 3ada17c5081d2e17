// change_events: one row per change to a user or a post, written in the change's transaction.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface ChangeEventsTable {
  id: Generated<number>
  message_id: string
  type: string
  subject: string
  user_id: number | null
  /** The event's `data`, JSON. */
  data: string
  /** 1 once turned into webhook deliveries. */
  forwarded: ColumnType<number, 0 | 1 | undefined, 0 | 1>
  created_at: Timestamp
}

export type ChangeEventRow = Selectable<ChangeEventsTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    change_events: ChangeEventsTable
  }
}
