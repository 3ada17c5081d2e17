// Realtime streams of change events. Anyone may listen to posts; a signed-in caller also hears
// their own user's events; superusers hear everything. A stream first replays what its client
// missed (after Last-Event-ID, within the retention window; older: a `reload`), then follows
// the process's change feed. Heartbeats keep proxies from closing it; a stream opened with a
// token ends when that token would stop working (revoked, session ended, expired), checked every
// few seconds. Streams are counted per user and per address in each process.
import { randomBytes } from 'node:crypto'

import type { Logger } from '../../logger.js'
import { DomainError } from '../../shared/errors.js'
import { hashedKey as hashToken } from '../../shared/hashed-key.js'
import type { TokenCaller } from '../auth/auth.service.js'
import type { AuthService } from '../auth/auth.service.js'
import type { VerifiedToken } from '../auth/tokens.js'
import type { ChangeEvent } from '../change-events/change-event.js'
import type { ChangeEventService } from '../change-events/change-events.service.js'
import { ChangeFeed } from './change-feed.js'
import type { ChangeSignal } from './change-signal.js'
import type { EventStreamsRepository } from './event-streams.repository.js'

export interface StreamViewer {
  userId: number | null
  isSuperuser: boolean
  /** The token the stream was opened with (directly or through a ticket); none for anonymous streams. */
  token: VerifiedToken | undefined
}

/** What a stream writes to its client; the API layer puts it on the wire. */
export interface StreamSink {
  event(event: ChangeEvent): void
  /** The client missed more than the retention window keeps: it should reload what it shows. */
  reload(): void
  heartbeat(): void
  /** The stream is over (its token stopped working, or the service is stopping). */
  end(): void
}

export interface EventStreamOptions {
  heartbeatMs: number
  perUser: number
  perAddress: number
  /** How often the change feed reads without being woken. */
  pollMs: number
}

export const TICKET_SECONDS = 30
const SESSION_CHECK_MS = 5_000
const REPLAY_BATCH = 500
/** More missed events than this, and the client is told to reload instead. */
const REPLAY_MAX = 5_000
const RECENT_IDS = 2_000
/** setTimeout's longest delay; a token living longer is checked again every few seconds anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1

export const INVALID_STREAM_TICKET = 'Invalid or expired stream ticket'
export const TOO_MANY_STREAMS = 'Too many event streams'

const invalidTicket = () => new DomainError('unauthenticated', INVALID_STREAM_TICKET, { code: 'invalid_stream_ticket' })

/** Posts are public; a user's events are theirs and superusers'. */
export function visibleTo(viewer: StreamViewer, event: ChangeEvent): boolean {
  if (event.type.startsWith('post.')) return true
  return viewer.isSuperuser || (viewer.userId !== null && event.userId === viewer.userId)
}

interface OpenStream {
  viewer: StreamViewer
  close(): void
}

export class EventStreamService {
  private readonly feed: ChangeFeed
  private readonly streams = new Set<OpenStream>()
  private readonly perUser = new Map<number, number>()
  private readonly perAddress = new Map<string, number>()
  private signal: ChangeSignal | undefined
  private sessionTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly tickets: EventStreamsRepository,
    private readonly auth: AuthService,
    private readonly changeEvents: ChangeEventService,
    private readonly makeSignal: () => Promise<ChangeSignal>,
    private readonly logger: Logger,
    private readonly options: EventStreamOptions,
  ) {
    const onError = (error: unknown) => this.logger.warn({ err: error }, 'reading change events for streams failed; retrying')
    this.feed = new ChangeFeed(changeEvents, options.pollMs, onError)
    // A commit here wakes this process's feed at once, and the others through the signal.
    changeEvents.onCommitted(() => {
      this.feed.kick()
      this.signal?.notify()
    })
  }

  async start(): Promise<void> {
    this.signal = await this.makeSignal()
    this.signal.onSignal(() => this.feed.kick())
    this.feed.start()
    this.sessionTimer = setInterval(() => void this.checkTokens(), SESSION_CHECK_MS).unref()
  }

  /** Ends every stream (the service is stopping) and stops listening. */
  async stop(): Promise<void> {
    clearInterval(this.sessionTimer)
    for (const stream of [...this.streams]) stream.close()
    await this.feed.stop()
    await this.signal?.close()
  }

  /** A single-use ticket, valid 30 seconds, that opens a stream as the caller (EventSource cannot send headers). */
  async issueTicket(caller: TokenCaller): Promise<{ ticket: string; expiresIn: number }> {
    const ticket = randomBytes(32).toString('base64url')
    await this.tickets.insertTicket({
      ticket_hash: hashToken(ticket),
      user_id: caller.user.id,
      jti: caller.token.jti,
      session_id: caller.token.sessionId,
      token_expires_at: caller.token.expiresAt.getTime(),
      expires_at: new Date(Date.now() + TICKET_SECONDS * 1000).toISOString(),
    })
    return { ticket, expiresIn: TICKET_SECONDS }
  }

  /** Who listens: the ticket's owner (spending it), the caller, or an anonymous listener. */
  async viewerOf(caller: TokenCaller | null, ticket: string | undefined): Promise<StreamViewer> {
    if (ticket !== undefined) {
      const spent = await this.tickets.spendTicket(hashToken(ticket))
      if (!spent) throw invalidTicket()
      const token: VerifiedToken = { userId: Number(spent.user_id), jti: spent.jti, sessionId: spent.session_id, expiresAt: new Date(Number(spent.token_expires_at)) }
      const user = token.expiresAt.getTime() > Date.now() ? await this.auth.userOfLiveToken(token) : undefined
      if (!user) throw invalidTicket()
      return { userId: user.id, isSuperuser: user.isSuperuser, token }
    }
    if (caller) return { userId: caller.user.id, isSuperuser: caller.user.isSuperuser, token: caller.token }
    return { userId: null, isSuperuser: false, token: undefined }
  }

  /**
   * Opens a stream: replays what the client missed after `lastEventId`, then follows new events.
   * 429 past the per-user or per-address limit. Returns the function that closes it.
   */
  async open(viewer: StreamViewer, address: string, lastEventId: number | undefined, sink: StreamSink): Promise<() => void> {
    const users = viewer.userId === null ? 0 : (this.perUser.get(viewer.userId) ?? 0)
    const addresses = this.perAddress.get(address) ?? 0
    if (users >= this.options.perUser || addresses >= this.options.perAddress) {
      throw new DomainError('rate_limited', TOO_MANY_STREAMS, { retryAfterSeconds: 5 })
    }
    // Counted before the first await, so streams opened at the same moment cannot all pass the check.
    count(this.perAddress, address, 1)
    if (viewer.userId !== null) count(this.perUser, viewer.userId, 1)
    const uncount = () => {
      count(this.perAddress, address, -1)
      if (viewer.userId !== null) count(this.perUser, viewer.userId, -1)
    }
    const recent = new Set<number>()
    const deliver = (event: ChangeEvent) => {
      if (!visibleTo(viewer, event) || recent.has(event.id)) return
      recent.add(event.id)
      if (recent.size > RECENT_IDS) recent.delete(recent.values().next().value as number)
      sink.event(event)
    }
    // Live events wait while the replay runs, so the client gets them in order after it.
    let waiting: ChangeEvent[] | undefined = []
    let unsubscribe: () => void
    try {
      unsubscribe = await this.feed.subscribe((events) => (waiting ? waiting.push(...events) : events.forEach(deliver)))
    } catch (error) {
      uncount()
      throw error
    }
    let closed = false
    const heartbeat = setInterval(() => sink.heartbeat(), this.options.heartbeatMs)
    const untilExpiry = viewer.token ? Math.min(MAX_TIMER_MS, Math.max(0, viewer.token.expiresAt.getTime() - Date.now())) : undefined
    const expiry = untilExpiry === undefined ? undefined : setTimeout(() => close(), untilExpiry)
    const stream: OpenStream = { viewer, close: () => close() }
    // `ended` false: the stream never started (the replay failed), and the caller answers with the error instead.
    const close = (ended = true) => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      clearTimeout(expiry)
      unsubscribe()
      this.streams.delete(stream)
      uncount()
      if (ended) sink.end()
    }
    this.streams.add(stream)
    try {
      if (lastEventId !== undefined) await this.replay(lastEventId, deliver, sink)
    } catch (error) {
      close(false)
      throw error
    }
    const held = waiting
    waiting = undefined
    held.forEach(deliver)
    return close
  }

  /** Open streams in this process (metrics, tests). */
  get openStreams(): number {
    return this.streams.size
  }

  prune(): Promise<void> {
    return this.tickets.deleteTicketsExpiredBefore(new Date().toISOString())
  }

  private async replay(lastEventId: number, deliver: (event: ChangeEvent) => void, sink: StreamSink): Promise<void> {
    const oldest = await this.changeEvents.oldestId()
    // Events after the client's last one were dropped (past the retention window): it must reload.
    if (oldest !== undefined && oldest > lastEventId + 1) return sink.reload()
    let after = lastEventId
    for (let read = 0; read < REPLAY_MAX; read += REPLAY_BATCH) {
      const events = await this.changeEvents.listAfter(after, REPLAY_BATCH)
      events.forEach(deliver)
      const last = events[events.length - 1]
      if (!last || events.length < REPLAY_BATCH) return
      after = last.id
    }
    sink.reload()
  }

  /** Ends the streams whose token stopped working: one check per token, every few seconds. */
  private async checkTokens(): Promise<void> {
    const byToken = new Map<string, OpenStream[]>()
    for (const stream of this.streams) {
      if (stream.viewer.token) byToken.set(stream.viewer.token.jti, [...(byToken.get(stream.viewer.token.jti) ?? []), stream])
    }
    for (const streams of byToken.values()) {
      const token = streams[0]?.viewer.token
      if (!token) continue
      try {
        if (!(await this.auth.userOfLiveToken(token))) streams.forEach((stream) => stream.close())
      } catch (error) {
        this.logger.warn({ err: error }, 'checking a stream\'s session failed; checking again shortly')
      }
    }
  }
}

function count<K>(counts: Map<K, number>, key: K, by: number): void {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}
