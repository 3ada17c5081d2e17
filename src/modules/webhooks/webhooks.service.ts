// Webhooks: superusers register endpoints for change events; each event an endpoint subscribes
// to becomes a delivery row in the unit that forwards the event (src/modules/change-events), and
// the dispatcher sends deliveries in whichever process claims them first, signed as the
// Standard Webhooks specification says, retried with exponential backoff and jitter for about
// a day. Any 2xx is success. An endpoint that has failed for three days is turned off.
import { randomBytes, randomUUID } from 'node:crypto'

import { Webhook as Signer } from 'standardwebhooks'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Logger } from '../../logger.js'
import type { Actor } from '../../shared/actor.js'
import { coalesced } from '../../shared/coalesced.js'
import { assertSuperuser, DomainError, RuleViolation } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import { PollLoop } from '../../shared/poll-loop.js'
import type { ChangeEvent } from '../change-events/change-event.js'
import { eventBody } from '../change-events/change-event.js'
import type { ChangeEventService } from '../change-events/change-events.service.js'
import type { SecretBox } from '../mfa/secret-box.js'
import type { ClientInfo } from '../security-events/security-event.js'
import type { SecurityEventService } from '../security-events/security-events.service.js'
import { assertPublicHost, postJson, RefusedAddressError } from './outgoing-request.js'
import type { Delivery, Webhook, WebhookChanges, WebhookInput, WebhookWithSecret } from './webhook.js'
import { toDelivery, toWebhook } from './webhook.js'
import type { AttemptOutcome, WebhooksRepository } from './webhooks.repository.js'
import type { DeliveryRow, WebhookRow } from './webhooks.table.js'

export interface WebhookServiceOptions {
  /** Send to private, loopback and link-local addresses too (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** The first retry's delay; each further one is four times longer, up to six hours. */
  retryBaseMs: number
}

const CLAIM_BATCH = 20
/** Longer than an attempt can take (the 10 s timeout), so a live claim is never taken over. */
const CLAIM_LEASE_MS = 30_000
const POLL_INTERVAL_MS = 2_000
const COMMIT_COALESCE_MS = 50
const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000
/** The first attempt and nine retries: about a day at the default base delay. */
export const MAX_ATTEMPTS = 10
const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000
const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000
const SETTLED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000
export const FAILING_FOR_THREE_DAYS = 'Deliveries failed for three days'

export const WEBHOOK_NOT_FOUND = 'Webhook not found'
export const DELIVERY_NOT_FOUND = 'Webhook delivery not found'

const webhookNotFound = (): never => {
  throw new DomainError('not_found', WEBHOOK_NOT_FOUND, { code: 'webhook_not_found' })
}
const deliveryNotFound = (): never => {
  throw new DomainError('not_found', DELIVERY_NOT_FOUND, { code: 'webhook_delivery_not_found' })
}

/** The retry delay after the `attempt`-th failed attempt, jittered by ±20 %. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.round(Math.min(MAX_RETRY_DELAY_MS, baseMs * 4 ** (attempt - 1)) * (0.8 + Math.random() * 0.4))
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export class WebhookService {
  private readonly worker = randomUUID()
  private readonly loop: PollLoop

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly changeEvents: ChangeEventService,
    private readonly secrets: SecretBox,
    private readonly securityEvents: SecurityEventService,
    private readonly logger: Logger,
    private readonly options: WebhookServiceOptions,
  ) {
    this.loop = new PollLoop(() => this.dispatch(), POLL_INTERVAL_MS, (error) => this.logger.warn({ err: error }, 'webhook dispatch failed; retrying on the next pass'))
    // Commits that wrote events wake this process's dispatcher, once per burst; others find them on their next poll.
    changeEvents.onCommitted(coalesced(() => this.loop.kick(), COMMIT_COALESCE_MS))
  }

  start(): void {
    this.loop.start()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  async create(actor: Actor, input: WebhookInput, client: ClientInfo): Promise<WebhookWithSecret> {
    assertSuperuser(actor)
    this.assertAcceptableUrl(input.url)
    const secret = newSecret()
    const row = await this.unitOfWork.run(async (unit) => {
      const created = await this.webhooks.in(unit).insertWebhook({ url: input.url, description: input.description ?? '', events: JSON.stringify(unique(input.events)), secret: this.secrets.seal(secret) })
      await this.securityEvents.record('webhook_created', actor.id, client, { unit })
      return created
    })
    return { ...toWebhook(row), secret }
  }

  list(actor: Actor, request: PageRequest): Promise<Paged<Webhook>> {
    assertSuperuser(actor)
    const rows = ({ offset, limit }: RowWindow) => this.webhooks.listWebhooks(offset, limit)
    return fetchPaged(request, { rows, count: () => this.webhooks.countWebhooks(), keyOf: (row) => Number(row.id) }, toWebhook)
  }

  async get(actor: Actor, id: number): Promise<Webhook> {
    assertSuperuser(actor)
    return toWebhook(await this.find(id))
  }

  /** Turning an endpoint back on clears why it was turned off and its failing streak. */
  async update(actor: Actor, id: number, changes: WebhookChanges): Promise<Webhook> {
    assertSuperuser(actor)
    if (changes.url !== undefined) this.assertAcceptableUrl(changes.url)
    const row = await this.webhooks.updateWebhook(id, {
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.events === undefined ? {} : { events: JSON.stringify(unique(changes.events)) }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled ? 1 : 0, disabled_reason: null, failing_since: null }),
    })
    if (changes.enabled) this.loop.kick()
    return toWebhook(row ?? webhookNotFound())
  }

  async remove(actor: Actor, id: number, client: ClientInfo): Promise<void> {
    assertSuperuser(actor)
    const removed = await this.unitOfWork.run(async (unit) => {
      if (!(await this.webhooks.in(unit).deleteWebhook(id))) return false
      await this.securityEvents.record('webhook_deleted', actor.id, client, { unit })
      return true
    })
    if (!removed) webhookNotFound()
  }

  /** A new secret, shown once; the one it replaces keeps signing beside it for 24 hours. */
  async rotateSecret(actor: Actor, id: number, client: ClientInfo): Promise<{ secret: string; previousValidUntil: string }> {
    assertSuperuser(actor)
    const secret = newSecret()
    const until = Date.now() + PREVIOUS_SECRET_MS
    await this.unitOfWork.run(async (unit) => {
      const webhooks = this.webhooks.in(unit)
      const current = (await webhooks.findWebhook(id)) ?? webhookNotFound()
      await webhooks.updateWebhook(id, { secret: this.secrets.seal(secret), previous_secret: current.secret, previous_secret_until: until })
      await this.securityEvents.record('webhook_secret_rotated', actor.id, client, { unit })
    })
    return { secret, previousValidUntil: new Date(until).toISOString() }
  }

  /** Queues a `ping` to the endpoint. */
  async ping(actor: Actor, id: number): Promise<Delivery> {
    assertSuperuser(actor)
    await this.find(id)
    const timestamp = new Date().toISOString()
    const payload = JSON.stringify({ type: 'ping', timestamp, data: { webhook_id: id } })
    const [row] = await this.webhooks.insertDeliveries([{ webhook_id: id, message_id: `msg_${randomUUID()}`, event_type: 'ping', subject: `webhook:${id}`, payload }], Date.now())
    this.loop.kick()
    return toDelivery(row ?? deliveryNotFound())
  }

  async deliveries(actor: Actor, id: number, request: PageRequest): Promise<Paged<Delivery>> {
    assertSuperuser(actor)
    await this.find(id)
    const rows = ({ offset, limit }: RowWindow) => this.webhooks.listDeliveries(id, offset, limit)
    return fetchPaged(request, { rows, count: () => this.webhooks.countDeliveries(id), keyOf: (row) => Number(row.id) }, toDelivery)
  }

  /** Sends a delivery again as a new delivery: the same body and webhook-id, so receivers can tell it is the same message. */
  async redeliver(actor: Actor, deliveryId: number): Promise<Delivery> {
    assertSuperuser(actor)
    const original = (await this.webhooks.findDelivery(deliveryId)) ?? deliveryNotFound()
    const { webhook_id, message_id, event_type, subject, payload } = original
    const [row] = await this.webhooks.insertDeliveries([{ webhook_id, message_id, event_type, subject, payload }], Date.now())
    this.loop.kick()
    return toDelivery(row ?? deliveryNotFound())
  }

  /** Settled deliveries older than a week are dropped. */
  prune(): Promise<void> {
    return this.webhooks.deleteSettledBefore(new Date(Date.now() - SETTLED_RETENTION_MS).toISOString())
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

  /** Forwards new change events, then sends every due delivery this process can claim, batch by batch. */
  async dispatch(): Promise<void> {
    // Full batches mean a backlog; a partial one has caught up. Events written meanwhile wait for
    // the next pass (their commit asks for one): under steady writes, forwarding until none were
    // left would never get to sending.
    while (await this.changeEvents.forwardPending((unit, events) => this.enqueueDeliveries(unit, events))) {
      if (this.loop.isStopped) return
    }
    for (;;) {
      const now = Date.now()
      const claimed = await this.webhooks.claimDueDeliveries(this.worker, now, now + CLAIM_LEASE_MS, CLAIM_BATCH)
      if (claimed.length === 0) return
      const endpoints = new Map<number, WebhookRow | undefined>()
      for (const delivery of claimed) {
        const id = Number(delivery.webhook_id)
        if (!endpoints.has(id)) endpoints.set(id, await this.webhooks.findWebhook(id))
      }
      await Promise.all(claimed.map((delivery) => this.attempt(delivery, endpoints.get(Number(delivery.webhook_id)))))
      if (this.loop.isStopped) return
    }
  }

  private async attempt(delivery: DeliveryRow, endpoint: WebhookRow | undefined): Promise<void> {
    if (!endpoint) return
    const outcome = await this.send(delivery, endpoint)
    await this.webhooks.recordAttempt(Number(delivery.id), this.worker, outcome)
    if (outcome.status === 'succeeded') {
      if (endpoint.failing_since !== null) await this.webhooks.markWebhookSucceeding(Number(endpoint.id))
      return
    }
    this.logger.warn({ deliveryId: delivery.id, webhookId: endpoint.id, statusCode: outcome.statusCode, error: outcome.error }, outcome.status === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry')
    await this.noteFailure(Number(endpoint.id))
  }

  private async send(delivery: DeliveryRow, endpoint: WebhookRow): Promise<AttemptOutcome> {
    const attempt = Number(delivery.attempts) + 1
    const retry = (statusCode: number | null, error: string): AttemptOutcome =>
      attempt >= MAX_ATTEMPTS
        ? { status: 'failed', statusCode, error, nextAttemptAt: Date.now() }
        : { status: 'pending', statusCode, error, nextAttemptAt: Date.now() + retryDelayMs(attempt, this.options.retryBaseMs) }
    try {
      const response = await postJson(new URL(endpoint.url), this.headers(delivery, endpoint), delivery.payload, { allowPrivate: this.options.allowPrivate })
      if (response.statusCode >= 200 && response.statusCode < 300) return { status: 'succeeded', statusCode: response.statusCode, error: null, nextAttemptAt: Date.now() }
      return retry(response.statusCode, `HTTP ${response.statusCode}${response.body ? `: ${response.body.slice(0, 200)}` : ''}`)
    } catch (error) {
      const text = error instanceof RefusedAddressError ? `refused: ${error.message} (WEBHOOK_ALLOW_PRIVATE=true allows it)` : error instanceof Error ? error.message : String(error)
      return retry(null, text)
    }
  }

  /** The Standard Webhooks headers: one signature per live secret (two for 24 hours after a rotation). */
  private headers(delivery: DeliveryRow, endpoint: WebhookRow): Record<string, string> {
    const now = new Date()
    const secrets = [endpoint.secret]
    if (endpoint.previous_secret !== null && Number(endpoint.previous_secret_until) > now.getTime()) secrets.push(endpoint.previous_secret)
    const signatures = secrets.map((sealed) => new Signer(this.secrets.open(sealed)).sign(delivery.message_id, now, delivery.payload))
    return {
      'webhook-id': delivery.message_id,
      'webhook-timestamp': Math.floor(now.getTime() / 1000).toString(),
      'webhook-signature': signatures.join(' '),
    }
  }

  /** Starts the endpoint's failing streak, or turns it off once the streak is three days old. */
  private async noteFailure(id: number): Promise<void> {
    const now = Date.now()
    const endpoint = await this.webhooks.markWebhookFailing(id, now)
    if (!endpoint || !endpoint.enabled || endpoint.failing_since === null || now - Number(endpoint.failing_since) < DISABLE_AFTER_FAILING_MS) return
    await this.webhooks.updateWebhook(id, { enabled: 0, disabled_reason: FAILING_FOR_THREE_DAYS })
    await this.securityEvents.record('webhook_disabled', null, null)
    this.logger.warn({ webhookId: id }, 'webhook turned off after three days of failed deliveries')
  }

  private async find(id: number): Promise<WebhookRow> {
    return (await this.webhooks.findWebhook(id)) ?? webhookNotFound()
  }

  private assertAcceptableUrl(raw: string): void {
    const refuse = (detail: string): never => {
      throw new RuleViolation('url', detail, 'url_refused')
    }
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return refuse('The webhook URL is not a URL')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('The webhook URL must be http or https')
    if (url.username !== '' || url.password !== '') refuse('The webhook URL must not carry credentials')
    if (this.options.allowPrivate) return
    try {
      assertPublicHost(url)
    } catch {
      refuse('The webhook URL names a loopback, private, link-local or metadata address: set WEBHOOK_ALLOW_PRIVATE=true for local receivers')
    }
  }
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)]
}

function deliveryOf(webhookId: number, event: ChangeEvent) {
  return { webhook_id: webhookId, message_id: event.messageId, event_type: event.type, subject: event.subject, payload: eventBody(event) }
}
