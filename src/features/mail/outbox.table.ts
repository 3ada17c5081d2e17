// The mail outbox: messages queued in the transaction of the change that sends them.
import type { ColumnType, Generated } from 'kysely'

import type { NullableTimestamp,Timestamp } from '../../db/column-types.js'

export interface MailOutboxTable {
  id: string
  recipient: string
  subject: string
  text_body: string
  html_body: string
  status: 'pending' | 'sent' | 'failed'
  attempts: Generated<number>
  /** Epoch milliseconds. */
  next_attempt_at: ColumnType<number | string, number, number>
  claimed_by: string | null
  claimed_until: ColumnType<number | string | null, number | null | undefined, number | null>
  last_error: string | null
  created_at: Timestamp
  sent_at: NullableTimestamp
}

/** A row as the outbox listing reads it. */
export interface OutboxListRow {
  id: string
  recipient: string
  subject: string
  text_body: string
  status: 'pending' | 'sent' | 'failed'
  attempts: number
  last_error: string | null
  created_at: string | Date
  sent_at: string | Date | null
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    mail_outbox: MailOutboxTable
  }
}
