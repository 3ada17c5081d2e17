// Webhook endpoints and deliveries as services take and return them.
import { toIsoString } from '../../shared/timestamps.js'
import type { ChangeEventType } from '../change-events/index.js'
import type { DeliveryRow, DeliveryStatus, WebhookRow } from './webhooks.table.js'

export interface Webhook {
  id: number
  url: string
  description: string
  events: ChangeEventType[]
  enabled: boolean
  /** Why the service turned it off (three days of failures); null when enabled or turned off by hand. */
  disabledReason: string | null
  /** When its deliveries started failing without a success since; null while they succeed. */
  failingSince: string | null
  createdAt: string
  updatedAt: string
}

/** A new endpoint with its secret, shown once. */
export interface WebhookWithSecret extends Webhook {
  secret: string
}

export interface WebhookInput {
  url: string
  events: ChangeEventType[]
  description?: string
}

export interface WebhookChanges {
  url?: string
  events?: ChangeEventType[]
  description?: string
  enabled?: boolean
}

export interface Delivery {
  id: number
  webhookId: number
  /** The webhook-id header: the same on every attempt and redelivery. */
  messageId: string
  eventType: string
  status: DeliveryStatus
  attempts: number
  lastStatusCode: number | null
  lastError: string | null
  lastAttemptAt: string | null
  /** When the next attempt is due; null once it succeeded or was given up. */
  nextAttemptAt: string | null
  createdAt: string
}

const epochMs = (value: number | string | null) => (value === null ? null : new Date(Number(value)).toISOString())

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: Number(row.id),
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as ChangeEventType[],
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason,
    failingSince: epochMs(row.failing_since),
    createdAt: toIsoString(row.created_at),
    updatedAt: toIsoString(row.updated_at),
  }
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    webhookId: Number(row.webhook_id),
    messageId: row.message_id,
    eventType: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at === null ? null : toIsoString(row.last_attempt_at),
    nextAttemptAt: row.status === 'pending' ? epochMs(row.next_attempt_at) : null,
    createdAt: toIsoString(row.created_at),
  }
}

/** A delivery the relay claimed to send. */
export interface ClaimedDelivery {
  id: number
  webhookId: number
  /** The Standard Webhooks `webhook-id`: the same for a redelivery of one message. */
  messageId: string
  payload: string
  /** Attempts made before this one. */
  attempts: number
}

/** Where a delivery goes, and the secrets that sign it (sealed): the current one, and the previous one for 24 hours after a rotation. */
export interface DeliveryEndpoint {
  id: number
  url: string
  sealedSecrets: string[]
  failingSince: number | null
  enabled: boolean
}

export function toClaimedDelivery(row: DeliveryRow): ClaimedDelivery {
  return { id: Number(row.id), webhookId: Number(row.webhook_id), messageId: row.message_id, payload: row.payload, attempts: Number(row.attempts) }
}

export function toDeliveryEndpoint(row: WebhookRow, now: number): DeliveryEndpoint {
  const previousLive = row.previous_secret !== null && Number(row.previous_secret_until) > now
  return {
    id: Number(row.id),
    url: row.url,
    sealedSecrets: previousLive && row.previous_secret !== null ? [row.secret, row.previous_secret] : [row.secret],
    failingSince: row.failing_since === null ? null : Number(row.failing_since),
    enabled: Boolean(row.enabled),
  }
}
