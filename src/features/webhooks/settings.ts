// The webhooks slice's settings (docs/configuration.md, Webhooks).
import type { Env } from '../../shared/settings.js'
import { boolean, integer } from '../../shared/settings.js'

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: endpoints on private, loopback and other special addresses (tests, a private network). */
  allowPrivate: boolean
  /** WEBHOOK_RETRY_BASE_MS: the first retry's wait; each next one four times longer. */
  retryBaseMs: number
  /** WEBHOOK_TIMEOUT_MS: how long one attempt may take; a claim on a delivery lasts three times this. */
  timeoutMs: number
}

export function webhookSettings(env: Env): WebhookSettings {
  return {
    allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 10, 600_000),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1_000, 60_000),
  }
}
