// The webhook relay: a background job (src/services.ts registers it) that forwards new change
// events into deliveries and sends the deliveries due, in whichever process claims them first,
// signed as the Standard Webhooks specification says, retried with exponential backoff and
// jitter for about a day. Any 2xx is success; an endpoint that has failed for three days is
// turned off. It works on the domain's deliveries and endpoints; webhooks' CRUD is WebhookService.
import { randomUUID } from 'node:crypto'

import { Webhook as Signer } from 'standardwebhooks'

import type { Unit } from '../../db/unit-of-work.js'
import type { Logger } from '../../logger.js'
import { untilDue } from '../../shared/scheduler.js'
import type { SecretBox } from '../../shared/secret-box.js'
import type { ChangeEvent, ChangeEventService } from '../change-events/index.js'
import { eventBody } from '../change-events/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import { postJson, RefusedAddressError } from './outgoing-request.js'
import type { ClaimedDelivery, DeliveryEndpoint } from './webhook.js'
import { toClaimedDelivery, toDeliveryEndpoint, toWebhook } from './webhook.js'
import type { AttemptOutcome, WebhooksRepository } from './webhooks.repository.js'

export interface WebhookRelayOptions {
  /** Send to private, loopback and link-local addresses too (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** The first retry's delay; each further one is four times longer, up to six hours. */
  retryBaseMs: number
  /** How long one attempt may take (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number
}

/** The relay runs this often while it finds work; idle, it backs off, and a commit that wrote events wakes it. */
export const WEBHOOK_RELAY_INTERVAL_MS = 2_000
const CLAIM_BATCH = 20
/** A claim lasts three attempts' timeouts: longer than an attempt can take, so a live claim is never taken over. */
const CLAIM_LEASE_TIMEOUTS = 3
const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000
/** The first attempt and nine retries: about a day at the default base delay. */
export const MAX_ATTEMPTS = 10
const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000
export const FAILING_FOR_THREE_DAYS = 'Deliveries failed for three days'

/** The retry delay after the `attempt`-th failed attempt, jittered by ±20 %. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.round(Math.min(MAX_RETRY_DELAY_MS, baseMs * 4 ** (attempt - 1)) * (0.8 + Math.random() * 0.4))
}

/** What WebhookRelay is built from. */
export interface WebhookRelayDependencies {
  webhooks: WebhooksRepository
  changeEvents: ChangeEventService
  secrets: SecretBox
  securityEvents: SecurityEventService
  logger: Logger
  options: WebhookRelayOptions
}

export class WebhookRelay {
  private readonly worker = randomUUID()

  private readonly webhooks: WebhooksRepository
  private readonly changeEvents: ChangeEventService
  private readonly secrets: SecretBox
  private readonly securityEvents: SecurityEventService
  private readonly logger: Logger
  private readonly options: WebhookRelayOptions

  constructor(dependencies: WebhookRelayDependencies) {
    this.webhooks = dependencies.webhooks
    this.changeEvents = dependencies.changeEvents
    this.secrets = dependencies.secrets
    this.securityEvents = dependencies.securityEvents
    this.logger = dependencies.logger
    this.options = dependencies.options
  }

  /**
   * Each forwarded change event becomes a delivery to every enabled endpoint subscribed to its
   * type, in the unit that marks the events forwarded.
   */
  async enqueueDeliveries(unit: Unit, events: ChangeEvent[]): Promise<void> {
    const webhooks = this.webhooks.in(unit)
    const endpoints = (await webhooks.listEnabledWebhooks()).map(toWebhook)
    // An endpoint hears what happens from its creation on, not the events still waiting to be forwarded from before it.
    const rows = events.flatMap((event) =>
      endpoints.filter((endpoint) => endpoint.events.includes(event.type) && Date.parse(event.timestamp) >= Date.parse(endpoint.createdAt)).map((endpoint) => deliveryOf(endpoint.id, event)),
    )
    await webhooks.insertDeliveries(rows, Date.now())
  }

  /**
   * One run: forwards new change events, then sends every due delivery this process can claim,
   * batch by batch. When there was nothing: false, or how long until a delivery is due.
   */
  async dispatch(signal?: AbortSignal): Promise<boolean | number> {
    let worked = false
    // Full batches mean a backlog; a partial one has caught up. Events written meanwhile wait for
    // the next run (their commit asks for one): under steady writes, forwarding until none were
    // left would never get to sending.
    for (;;) {
      const full = await this.changeEvents.forwardPending((unit, events) => {
        worked = true
        return this.enqueueDeliveries(unit, events)
      })
      if (!full) break
      if (signal?.aborted) return true
    }
    for (;;) {
      const now = Date.now()
      const claimed = (await this.webhooks.claimDueDeliveries(this.worker, now, now + CLAIM_LEASE_TIMEOUTS * this.options.timeoutMs, CLAIM_BATCH)).map(toClaimedDelivery)
      if (claimed.length === 0) return worked || untilDue(await this.webhooks.nextDeliveryDueAt())
      worked = true
      const endpoints = new Map<number, DeliveryEndpoint | undefined>()
      for (const delivery of claimed) {
        if (!endpoints.has(delivery.webhookId)) {
          const row = await this.webhooks.findWebhook(delivery.webhookId)
          endpoints.set(delivery.webhookId, row && toDeliveryEndpoint(row, Date.now()))
        }
      }
      await Promise.all(claimed.map((delivery) => this.attempt(delivery, endpoints.get(delivery.webhookId))))
      if (signal?.aborted) return true
    }
  }

  private async attempt(delivery: ClaimedDelivery, endpoint: DeliveryEndpoint | undefined): Promise<void> {
    if (!endpoint) return
    const outcome = await this.send(delivery, endpoint)
    await this.webhooks.recordAttempt(delivery.id, this.worker, outcome)
    if (outcome.status === 'succeeded') {
      if (endpoint.failingSince !== null) await this.webhooks.markWebhookSucceeding(endpoint.id)
      return
    }
    this.logger.warn({ deliveryId: delivery.id, webhookId: endpoint.id, statusCode: outcome.statusCode, error: outcome.error }, outcome.status === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry')
    await this.noteFailure(endpoint.id)
  }

  private async send(delivery: ClaimedDelivery, endpoint: DeliveryEndpoint): Promise<AttemptOutcome> {
    const attempt = delivery.attempts + 1
    const retry = (statusCode: number | null, error: string): AttemptOutcome =>
      attempt >= MAX_ATTEMPTS
        ? { status: 'failed', statusCode, error, nextAttemptAt: Date.now() }
        : { status: 'pending', statusCode, error, nextAttemptAt: Date.now() + retryDelayMs(attempt, this.options.retryBaseMs) }
    try {
      const response = await postJson(new URL(endpoint.url), this.headers(delivery, endpoint), delivery.payload, { allowPrivate: this.options.allowPrivate, timeoutMs: this.options.timeoutMs })
      if (response.statusCode >= 200 && response.statusCode < 300) return { status: 'succeeded', statusCode: response.statusCode, error: null, nextAttemptAt: Date.now() }
      return retry(response.statusCode, `HTTP ${response.statusCode}${response.body ? `: ${response.body.slice(0, 200)}` : ''}`)
    } catch (error) {
      const text = error instanceof RefusedAddressError ? `refused: ${error.message} (WEBHOOK_ALLOW_PRIVATE=true allows it)` : error instanceof Error ? error.message : String(error)
      return retry(null, text)
    }
  }

  /** The Standard Webhooks headers: one signature per live secret (two for 24 hours after a rotation). */
  private headers(delivery: ClaimedDelivery, endpoint: DeliveryEndpoint): Record<string, string> {
    const now = new Date()
    const signatures = endpoint.sealedSecrets.map((sealed) => new Signer(this.secrets.open(sealed)).sign(delivery.messageId, now, delivery.payload))
    return {
      'webhook-id': delivery.messageId,
      'webhook-timestamp': Math.floor(now.getTime() / 1000).toString(),
      'webhook-signature': signatures.join(' '),
    }
  }

  /** Starts the endpoint's failing streak, or turns it off once the streak is three days old. */
  private async noteFailure(id: number): Promise<void> {
    const now = Date.now()
    const row = await this.webhooks.markWebhookFailing(id, now)
    const endpoint = row && toDeliveryEndpoint(row, now)
    if (!endpoint || !endpoint.enabled || endpoint.failingSince === null || now - endpoint.failingSince < DISABLE_AFTER_FAILING_MS) return
    await this.webhooks.updateWebhook(id, { enabled: 0, disabled_reason: FAILING_FOR_THREE_DAYS })
    await this.securityEvents.record('webhook_disabled', null, null)
    this.logger.warn({ webhookId: id }, 'webhook turned off after three days of failed deliveries')
  }
}

function deliveryOf(webhookId: number, event: ChangeEvent) {
  return { webhook_id: webhookId, message_id: event.messageId, event_type: event.type, subject: event.subject, payload: eventBody(event) }
}
