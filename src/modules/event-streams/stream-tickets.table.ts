// Single-use tickets that open a realtime stream from a browser.
import type { ColumnType, Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface StreamTicketsTable {
  ticket_hash: string
  user_id: number
  jti: string
  session_id: string
  /** Epoch ms; bigint, a string from PostgreSQL. */
  token_expires_at: ColumnType<number | string, number, number>
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: ColumnType<Date | string, string | undefined, string>
}

export type StreamTicketRow = Selectable<StreamTicketsTable>
