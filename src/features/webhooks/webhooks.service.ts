// Webhooks: superusers register endpoints for change events, rotate their secrets, read their
// deliveries and send them again. The relay (webhook-relay.ts) makes and sends the deliveries.
import { randomBytes, randomUUID } from 'node:crypto'

import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, RuleViolation } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import type { SecretBox } from '../../shared/secret-box.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import { assertPublicHost } from './outgoing-request.js'
import type { Delivery, Webhook, WebhookChanges, WebhookInput, WebhookWithSecret } from './webhook.js'
import { toDelivery, toWebhook } from './webhook.js'
import type { WebhooksRepository } from './webhooks.repository.js'
import type { WebhookRow } from './webhooks.table.js'

export interface WebhookServiceOptions {
  /** Accept private, loopback and link-local addresses too (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
}

const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000
const SETTLED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000

export const WEBHOOK_NOT_FOUND = 'Webhook not found'
export const DELIVERY_NOT_FOUND = 'Webhook delivery not found'

const webhookNotFound = (): never => {
  throw new DomainError('not_found', WEBHOOK_NOT_FOUND, { code: 'webhook_not_found' })
}
const deliveryNotFound = (): never => {
  throw new DomainError('not_found', DELIVERY_NOT_FOUND, { code: 'webhook_delivery_not_found' })
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/** What WebhookService is built from. */
export interface WebhookServiceDependencies {
  webhooks: WebhooksRepository
  unitOfWork: UnitOfWork
  secrets: SecretBox
  securityEvents: SecurityEventService
  options: WebhookServiceOptions
  /** Runs the relay (the scheduler's `webhooks` job) soon: a delivery was queued. */
  wakeRelay: () => void
}

export class WebhookService {
  private readonly webhooks: WebhooksRepository
  private readonly unitOfWork: UnitOfWork
  private readonly secrets: SecretBox
  private readonly securityEvents: SecurityEventService
  private readonly options: WebhookServiceOptions
  /** Runs the relay (the scheduler's `webhooks` job) soon: a delivery was queued. */
  private readonly wakeRelay: () => void

  constructor(dependencies: WebhookServiceDependencies) {
    this.webhooks = dependencies.webhooks
    this.unitOfWork = dependencies.unitOfWork
    this.secrets = dependencies.secrets
    this.securityEvents = dependencies.securityEvents
    this.options = dependencies.options
    this.wakeRelay = dependencies.wakeRelay
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
    if (changes.enabled) this.wakeRelay()
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
    this.wakeRelay()
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
    this.wakeRelay()
    return toDelivery(row ?? deliveryNotFound())
  }

  /** Settled deliveries older than a week are dropped. */
  prune(): Promise<void> {
    return this.webhooks.deleteSettledBefore(new Date(Date.now() - SETTLED_RETENTION_MS).toISOString())
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
