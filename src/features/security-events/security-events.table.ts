// The security event log.
import type { ColumnType, Selectable } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface SecurityEventsTable {
  id: string
  user_id: number | null
  type: string
  /** How a login was made (password, email_link, email_code); null for other events. */
  method: string | null
  ip: string | null
  user_agent: string | null
  /** The organization the event belongs to (its own log), when it is about one. */
  org_id: ColumnType<number | null, number | null | undefined, number | null>
  /** The post a superuser read or changed without otherwise being allowed to read it. */
  post_id: ColumnType<number | null, number | null | undefined, number | null>
  /** Who acted when it was not the user themself: the superuser who banned them or opened their account. */
  actor_id: ColumnType<number | null, number | null | undefined, number | null>
  /** What else the event says, as JSON (an impersonation's mode, reason and end). */
  details: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
}

export type SecurityEventRow = Selectable<SecurityEventsTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    security_events: SecurityEventsTable
  }
}
