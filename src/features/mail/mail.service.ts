// Mail goes through the outbox: queue() writes the rendered message in the caller's
// transaction (beside the token it carries), and the dispatcher sends it later, in whichever
// process claims it first, retrying with exponential backoff while the mail server is away.
import { randomUUID } from 'node:crypto'

import type { Unit } from '../../db/unit-of-work.js'
import { afterCommit } from '../../db/unit-of-work.js'
import type { Logger } from '../../logger.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import { untilDue } from '../../shared/scheduler.js'
import type { MailTemplateName, MailTransport } from './mail.js'
import type { QueuedMail } from './mail.js'
import { MAIL_PREVIEW_OFF, toQueuedMail } from './mail.js'
import type { MailTemplates } from './message-templates.js'
import type { OutboxRepository, OutboxRow } from './outbox.repository.js'
import { TEMPLATE_SAMPLES } from './template-samples.js'
import type { MailValues, RenderedMail } from './templates.js'
import { TEMPLATE_NAMES } from './templates.js'

/** A mail a feature asks for: a template, its values, and the recipient's language (null: the default). */
export interface MailRequest {
  template: MailTemplateName
  to: string
  locale: string | null
  values: MailValues
}

export interface MailServiceOptions {
  templatesDir: string | undefined
  /** Superusers may read the outbox, bodies and links included (MAIL_PREVIEW: development). */
  preview: boolean
  /** First retry delay; each further one doubles, up to MAX_RETRY_DELAY_MS. */
  retryBaseMs: number
}

const CLAIM_BATCH = 20
const CLAIM_LEASE_MS = 60_000
/** The mail relay runs this often while it finds mail; idle, it backs off (src/services.ts registers it). */
export const MAIL_RELAY_INTERVAL_MS = 2_000
const MAX_RETRY_DELAY_MS = 10 * 60_000
/** About a day of retries at the longest delay before a message is given up as failed. */
const MAX_ATTEMPTS = 150
const SENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000

/** What MailService is built from. */
export interface MailServiceDependencies {
  outbox: OutboxRepository
  transport: MailTransport
  logger: Logger
  options: MailServiceOptions
  /** Runs the mail relay (the scheduler's `mail` job) soon. */
  wake: () => void
}

export class MailService {
  private loadedTemplates: Promise<MailTemplates> | undefined
  private readonly worker = randomUUID()

  private readonly outbox: OutboxRepository
  private readonly transport: MailTransport
  private readonly logger: Logger
  private readonly options: MailServiceOptions
  /** Runs the mail relay (the scheduler's `mail` job) soon. */
  private readonly wake: () => void

  constructor(dependencies: MailServiceDependencies) {
    this.outbox = dependencies.outbox
    this.transport = dependencies.transport
    this.logger = dependencies.logger
    this.options = dependencies.options
    this.wake = dependencies.wake
    // An operator's own templates are read at start, so a broken one stops it; the bundled ones
    // (checked by the tests) wait for the first mail.
    if (this.options.templatesDir !== undefined) void this.templates().catch(() => {})
  }

  /** The templates, read and compiled once (MessageFormat is loaded with them). */
  templates(): Promise<MailTemplates> {
    this.loadedTemplates ??= import('./message-templates.js').then(({ loadTemplates }) => loadTemplates(this.options.templatesDir))
    return this.loadedTemplates
  }

  /** Resolves once an operator's templates (MAIL_TEMPLATES_DIR) are read and compiled; rejects on a broken one. */
  async ready(): Promise<void> {
    if (this.options.templatesDir !== undefined) await this.templates()
  }

  /**
   * Queues a mail in the unit of work of the change it belongs to: it goes out only if the change
   * commits, and the commit wakes the relay (whoever queued it).
   */
  async queue(unit: Unit, request: MailRequest): Promise<void> {
    await this.outbox.in(unit).insertOutboxMessage(await this.render(request))
    afterCommit(unit, () => this.wake())
  }

  /** The mail as it would go out: in the recipient's language, or the nearest there is. A value a template could not use is logged, and the mail still goes. */
  async render(request: MailRequest): Promise<RenderedMail> {
    return (await this.templates()).render(request.template, request.locale, request.to, request.values, (problem) => this.logger.warn(problem, 'a mail template could not use a value'))
  }

  /** A template rendered with example values in a language (its nearest, when it has none of its own): a superuser's preview. */
  previewTemplate(actor: Actor, name: string, locale: string | undefined): Promise<RenderedMail> {
    assertSuperuser(actor)
    const template = TEMPLATE_NAMES.find((known) => known === name)
    if (!template) throw new DomainError('not_found', 'No mail template with this name', { code: 'mail_template_not_found' })
    return this.render({ template, to: 'ada@example.com', locale: locale ?? null, values: TEMPLATE_SAMPLES[template] })
  }

  /** Closes the transport (after the relay stopped). */
  close(): void {
    this.transport.close()
  }

  /**
   * The mail relay's run (every process runs it: claims keep two from sending one message):
   * sends every due message this process can claim, batch by batch. When none was due: false,
   * or how long until one is.
   */
  async dispatch(signal?: AbortSignal): Promise<boolean | number> {
    let sent = false
    for (;;) {
      const now = Date.now()
      const claimed = await this.outbox.claimDueMessages(this.worker, now, now + CLAIM_LEASE_MS, CLAIM_BATCH)
      if (claimed.length === 0) return sent || untilDue(await this.outbox.nextMessageDueAt())
      sent = true
      for (const message of claimed) await this.deliver(message)
      if (signal?.aborted) return sent
    }
  }

  /** The outbox as a person testing by hand reads it: each message's text and the links in it. */
  async preview(actor: Actor, request: PageRequest): Promise<Paged<QueuedMail>> {
    assertSuperuser(actor)
    if (!this.options.preview) throw new DomainError('not_found', MAIL_PREVIEW_OFF, { code: 'mail_preview_off' })
    const rows = ({ offset, limit }: RowWindow) => this.outbox.listOutboxMessages(offset, limit)
    return fetchPaged(request, { rows, count: () => this.outbox.countOutboxMessages(), keyOf: () => 0 }, toQueuedMail)
  }

  pendingStats() {
    return this.outbox.pendingStats()
  }

  pruneSent(): Promise<void> {
    return this.outbox.deleteSentBefore(new Date(Date.now() - SENT_RETENTION_MS).toISOString())
  }

  private async deliver(message: OutboxRow): Promise<void> {
    try {
      await this.transport.send({ to: message.recipient, subject: message.subject, text: message.text_body, html: message.html_body })
    } catch (error) {
      const attempt = message.attempts + 1
      const text = error instanceof Error ? error.message : String(error)
      const delay = Math.min(MAX_RETRY_DELAY_MS, this.options.retryBaseMs * 2 ** (attempt - 1))
      const next = attempt >= MAX_ATTEMPTS ? null : Math.round(Date.now() + delay * (0.8 + Math.random() * 0.4))
      await this.outbox.markAttemptFailed(message.id, this.worker, text, next)
      this.logger.warn({ messageId: message.id, attempt, error: text, retryInMs: next === null ? null : Math.round(next - Date.now()) }, next === null ? 'mail failed for good' : 'mail not sent; will retry')
      return
    }
    await this.outbox.markSent(message.id, this.worker)
  }
}
