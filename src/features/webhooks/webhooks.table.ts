// Webhook endpoints and their deliveries.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

/** Epoch milliseconds: bigint, a string from PostgreSQL. */
type EpochMs = ColumnType<number | string, number, number>
type NullableEpochMs = ColumnType<number | string | null, number | null | undefined, number | null>

export interface WebhooksTable {
  id: Generated<number>
  url: string
  description: string
  /** JSON array of event types. */
  events: string
  /** Sealed (SecretBox). */
  secret: string
  previous_secret: string | null
  previous_secret_until: NullableEpochMs
  enabled: ColumnType<number | boolean, 0 | 1 | undefined, 0 | 1>
  disabled_reason: string | null
  failing_since: NullableEpochMs
  created_at: Timestamp
  updated_at: Timestamp
}

export type WebhookRow = Selectable<WebhooksTable>

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface WebhookDeliveriesTable {
  id: Generated<number>
  webhook_id: number
  message_id: string
  event_type: string
  subject: string
  payload: string
  status: DeliveryStatus
  attempts: Generated<number>
  next_attempt_at: EpochMs
  claimed_by: string | null
  claimed_until: NullableEpochMs
  last_status_code: number | null
  last_error: string | null
  last_attempt_at: NullableTimestamp
  created_at: Timestamp
}

export type DeliveryRow = Selectable<WebhookDeliveriesTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    webhooks: WebhooksTable
    webhook_deliveries: WebhookDeliveriesTable
  }
}
