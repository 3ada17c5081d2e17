// The security event log.
import type { Selectable } from 'kysely'

import type { Timestamp } from '../../db/column-types.js'

export interface SecurityEventsTable {
  id: string
  user_id: number | null
  type: string
  /** How a login was made (password, email_link, email_code); null for other events. */
  method: string | null
  ip: string | null
  user_agent: string | null
  created_at: Timestamp
}

export type SecurityEventRow = Selectable<SecurityEventsTable>
