// Webhooks and deliveries in version 2's wire shape.
import type { Delivery, Webhook, WebhookWithSecret } from './webhook.js'

export function toWebhookRead(webhook: Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    events: webhook.events,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    failing_since: webhook.failingSince,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
  }
}

export function toWebhookCreated(webhook: WebhookWithSecret) {
  return { ...toWebhookRead(webhook), secret: webhook.secret }
}

export function toDeliveryRead(delivery: Delivery) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    message_id: delivery.messageId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    last_attempt_at: delivery.lastAttemptAt,
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
  }
}
