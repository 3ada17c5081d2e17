// Realtime streams of change events. A post's events reach the streams of those who may list it,
// both as the event carries it and as it is now (the posts feature's policy: one check, live and
// on replay, so a replayed event of a post since made private, deleted or hidden reaches nobody
// it is closed to; a withdrawn post's own event carries its id alone). A signed-in caller also
// hears their own user's events and those of the organizations whose grants they hold (as the
// stream's own membership events add, change and remove them, under each organization's
// second-factor rule); superusers hear everything. A stream first replays what its client
// missed (after Last-Event-ID, within the retention window; older: a `reload`), then follows
// the process's change feed. Heartbeats keep proxies from closing it; a stream opened with a
// token ends when that token would stop working (revoked, session ended, expired), checked every
// few seconds. Streams are counted per user and per address in each process.
import type { Logger } from '../../logger.js'
import { DomainError } from '../../shared/errors.js'
import type { AuthService, TokenCaller, VerifiedToken } from '../auth/index.js'
import type { ChangeEvent, ChangeEventService } from '../change-events/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { MemberRole, PostFacts, Reader } from '../posts/index.js'
import { mayList, postFactsOf } from '../posts/index.js'
import type { EventContext } from './change-feed.js'
import { ChangeFeed } from './change-feed.js'
import type { ChangeSignal } from './change-signal.js'

/** Who listens: a reader of posts as the posts policy sees them (one that never writes through a stream). */
export interface StreamViewer extends Reader {
  userId: number | null
  isSuperuser: boolean
  mayWrite: false
  /** The token the stream was opened with (directly or through a ticket); none for anonymous streams. */
  token: VerifiedToken | undefined
  /**
   * The organizations whose grants the viewer holds, with their role: read when the stream opens,
   * then kept by the membership and organization events it sees.
   */
  orgRoles: Map<number, MemberRole>
  /** Memberships whose grants an organization's second-factor rule withholds (the viewer has no second factor). */
  withheld: Map<number, MemberRole>
  /** Whether the viewer had a second factor when the stream opened. */
  secondFactor: boolean
  /** The users the viewer blocked: their posts' and comments' events never reach the stream. Read at open, then at every session check. */
  blocked: ReadonlySet<number>
}

/** What the streams ask of other features about the present. */
export interface StreamFacts {
  /** The live posts among these ids, as they are now. */
  posts(ids: readonly number[]): Promise<ReadonlyMap<number, PostFacts>>
  /** Whether these organizations require a second factor of their members. */
  mfaRules(orgIds: readonly number[]): Promise<ReadonlyMap<number, boolean>>
  /** The user's organization grants: held, withheld by the second-factor rule, and whether they have a second factor. */
  grants(userId: number): Promise<{ roles: Map<number, MemberRole>; withheld: Map<number, MemberRole>; secondFactor: boolean }>
  /** Everyone each of these users blocked. */
  blocked(userIds: readonly number[]): Promise<Map<number, Set<number>>>
}

/** What a stream writes to its client; the API layer puts it on the wire. */
export interface StreamSink {
  /** Writes one event; the bytes it took. */
  event(event: ChangeEvent): number
  /** The client missed more than the retention window keeps: it should reload what it shows. */
  reload(): void
  heartbeat(): void
  /** The stream is over (its token stopped working, or the service is stopping). */
  end(): void
  /** Drops the connection at once, with whatever it still had to send (a client that stopped reading). */
  abort(): void
  /** Bytes written that the client's connection has not taken yet. */
  backlog(): number
  /** Resolves true once the backlog is sent, false after `ms` or when the connection closes. */
  drained(ms: number): Promise<boolean>
}

export interface EventStreamOptions {
  heartbeatMs: number
  perUser: number
  perAddress: number
  /** The client an address counts as: the grouping every per-address limit uses (an IPv6 /64 is one client). */
  clientOf: (address: string) => string
  /** What is true now: posts, organizations' rules, a user's grants (the posts and orgs features answer). */
  facts: StreamFacts
}

export const TICKET_SECONDS = 30
/** How often the tokens of open streams are checked (the `stream-sessions` job). */
export const SESSION_CHECK_MS = 5_000

/** The background jobs of the streams, registered in src/services.ts. */
export type StreamJob = 'change-feed' | 'stream-sessions'
const REPLAY_BATCH = 500
/** More missed events than this, and the client is told to reload instead. */
const REPLAY_MAX = 5_000
/** More missed bytes than this, and the client is told to reload instead: what one replay may send. */
export const REPLAY_MAX_BYTES = 8 * 1024 * 1024
/**
 * Bytes a stream may hold unsent (its client reads slower than events come). Past it the stream
 * is dropped, its buffer freed; the client resumes with Last-Event-ID.
 */
export const STREAM_MAX_BACKLOG_BYTES = 1024 * 1024
/** During a replay, the next event waits while the client has more than this unsent. */
const REPLAY_DRAIN_AT_BYTES = 64 * 1024
/** How long a replay waits for a client to take its backlog before dropping it. */
const REPLAY_DRAIN_MS = 10_000
/** Live events held while a replay runs; past it, the stream is dropped (it resumes later). */
const HELD_MAX = 10_000
const RECENT_IDS = 2_000
/** setTimeout's longest delay; a token living longer is checked again every few seconds anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1

export const INVALID_STREAM_TICKET = 'Invalid or expired stream ticket'
export const TOO_MANY_STREAMS = 'Too many event streams'

const invalidTicket = () => new DomainError('unauthenticated', INVALID_STREAM_TICKET, { code: 'invalid_stream_ticket' })

const isOrgEvent = (event: ChangeEvent) => event.type.startsWith('org.') || event.type.startsWith('membership.')
const isMembershipGrant = (event: ChangeEvent) => event.type === 'membership.added' || event.type === 'membership.role_changed'
/** An organization's events name it as their subject (`org:7`). */
const orgIdOf = (event: ChangeEvent) => Number(event.subject.slice('org:'.length))
/** A post's events name it as their subject (`post:7`). */
const postIdOf = (event: ChangeEvent) => Number(event.subject.slice('post:'.length))
/** The events that say a post is gone: on a stream they carry its id alone, never its text. */
const WITHDRAWALS = new Set<string>(['post.deleted', 'post.trashed', 'post.removed'])

/** A comment's events carry its post's id: who may list the post now hears them. */
const commentPostIdOf = (event: ChangeEvent) => Number((event.data as { post_id?: unknown } | null)?.post_id)
const isCommentEvent = (event: ChangeEvent) => event.type.startsWith('comment.')

/** The facts a batch of events needs (EventContext), in one read per kind. */
export async function contextOf(facts: Pick<StreamFacts, 'posts' | 'mfaRules'>, events: readonly ChangeEvent[]): Promise<EventContext> {
  const postIds = new Set<number>()
  const orgIds = new Set<number>()
  for (const event of events) {
    if (event.type.startsWith('post.') && !WITHDRAWALS.has(event.type)) postIds.add(postIdOf(event))
    else if (isCommentEvent(event)) postIds.add(commentPostIdOf(event))
    else if (isMembershipGrant(event)) orgIds.add(orgIdOf(event))
  }
  const [posts, mfaRules] = await Promise.all([
    postIds.size === 0 ? new Map<number, PostFacts>() : facts.posts([...postIds]),
    orgIds.size === 0 ? new Map<number, boolean>() : facts.mfaRules([...orgIds]),
  ])
  return { posts, mfaRules }
}

/**
 * Whether the viewer hears the event now. A post's: if they may list the post as the event
 * carries it and as it is now (a withdrawal, as it was). A user's: theirs and superusers'. An
 * organization's: those holding its grants.
 */
export function visibleTo(viewer: StreamViewer, event: ChangeEvent, context: EventContext): boolean {
  const aboutContent = event.type.startsWith('post.') || isCommentEvent(event)
  // Whom the viewer blocked says nothing on their stream.
  if (aboutContent && event.userId !== null && viewer.blocked.has(event.userId)) return false
  if (event.type.startsWith('post.')) {
    const then = postFactsOf(event.data)
    if (then === undefined || !mayList(viewer, then)) return false
    if (WITHDRAWALS.has(event.type)) return true
    const now = context.posts.get(postIdOf(event))
    return now !== undefined && mayList(viewer, now)
  }
  if (isCommentEvent(event)) {
    // Whoever may list its post as it is now; a post since gone or closed to them takes its comments with it.
    const post = context.posts.get(commentPostIdOf(event))
    return post !== undefined && mayList(viewer, post)
  }
  if (viewer.isSuperuser || (viewer.userId !== null && event.userId === viewer.userId)) return true
  return isOrgEvent(event) && viewer.orgRoles.has(orgIdOf(event))
}

/** The event as the stream writes it: a withdrawn post's carries its id alone. */
export function asWritten(event: ChangeEvent): ChangeEvent {
  if (!WITHDRAWALS.has(event.type)) return event
  return { ...event, data: { id: (event.data as { id?: unknown } | null)?.id ?? postIdOf(event) } }
}

/**
 * Keeps the viewer's organizations as the stream passes their membership and organization
 * events, in order: a removal stops the organization's next events at once, in every process's
 * streams; a grant is held only where the organization's second-factor rule is met.
 */
export function followMemberships(viewer: StreamViewer, event: ChangeEvent, context: EventContext): void {
  if (event.type === 'org.deleted') {
    viewer.orgRoles.delete(orgIdOf(event))
    viewer.withheld.delete(orgIdOf(event))
  }
  if (event.type === 'org.updated' && !viewer.secondFactor) {
    const orgId = orgIdOf(event)
    const requires = (event.data as { require_mfa?: unknown }).require_mfa === true
    const [from, to] = requires ? [viewer.orgRoles, viewer.withheld] : [viewer.withheld, viewer.orgRoles]
    const role = from.get(orgId)
    if (role !== undefined) {
      from.delete(orgId)
      to.set(orgId, role)
    }
  }
  if (viewer.userId === null || event.userId !== viewer.userId) return
  if (isMembershipGrant(event)) {
    const orgId = orgIdOf(event)
    const withheld = context.mfaRules.get(orgId) === true && !viewer.secondFactor
    ;(withheld ? viewer.orgRoles : viewer.withheld).delete(orgId)
    ;(withheld ? viewer.withheld : viewer.orgRoles).set(orgId, roleOf(event))
  }
  if (event.type === 'membership.removed') {
    viewer.orgRoles.delete(orgIdOf(event))
    viewer.withheld.delete(orgIdOf(event))
  }
}

/** A membership event's role (its data is the membership's read shape). */
const roleOf = (event: ChangeEvent): MemberRole => (event.data as { role: MemberRole }).role

/** What a stream ticket carries: the token it stands for (epoch ms for its expiry). */
interface TicketData {
  jti: string
  sessionId: string
  tokenExpiresAt: number
}

interface OpenStream {
  viewer: StreamViewer
  close(): void
}

/** What EventStreamService is built from. */
export interface EventStreamServiceDependencies {
  secrets: OneTimeSecrets
  auth: AuthService
  changeEvents: ChangeEventService
  makeSignal: () => Promise<ChangeSignal>
  logger: Logger
  options: EventStreamOptions
  /** Runs one of the streams' jobs soon. */
  wake: (job: StreamJob) => void
}

export class EventStreamService {
  private readonly feed: ChangeFeed
  private readonly streams = new Set<OpenStream>()
  private readonly perUser = new Map<number, number>()
  private readonly perAddress = new Map<string, number>()
  private signal: ChangeSignal | undefined
  private readonly tickets: SecretKind<TicketData>

  private readonly auth: AuthService
  private readonly changeEvents: ChangeEventService
  private readonly makeSignal: () => Promise<ChangeSignal>
  private readonly logger: Logger
  private readonly options: EventStreamOptions
  /** Runs one of the streams' jobs soon. */
  private readonly wake: (job: StreamJob) => void

  constructor(dependencies: EventStreamServiceDependencies) {
    this.auth = dependencies.auth
    this.changeEvents = dependencies.changeEvents
    this.makeSignal = dependencies.makeSignal
    this.logger = dependencies.logger
    this.options = dependencies.options
    this.wake = dependencies.wake
    const secrets = dependencies.secrets
    this.tickets = secrets.kind('stream_ticket', { seconds: TICKET_SECONDS })
    this.feed = new ChangeFeed(this.changeEvents, (events) => contextOf(this.options.facts, events), () => this.wake('change-feed'))
    // A commit here wakes this process's feed at once, and the others through the signal.
    this.changeEvents.onCommitted(() => {
      this.feed.kick()
      this.signal?.notify()
    })
  }

  async start(): Promise<void> {
    this.signal = await this.makeSignal()
    this.signal.onSignal(() => this.feed.kick())
  }

  /** Ends every stream (the service is stopping) and stops listening. */
  async stop(): Promise<void> {
    for (const stream of [...this.streams]) stream.close()
    await this.signal?.close()
  }

  /** A single-use ticket, valid 30 seconds, that opens a stream as the caller (EventSource cannot send headers). */
  async issueTicket(caller: TokenCaller): Promise<{ ticket: string; expiresIn: number }> {
    const { token: ticket } = await this.tickets.issue({
      userId: caller.user.id,
      data: { jti: caller.token.jti, sessionId: caller.token.sessionId, tokenExpiresAt: caller.token.expiresAt.getTime() },
    })
    return { ticket, expiresIn: TICKET_SECONDS }
  }

  /** Who listens: the ticket's owner (spending it), the caller, or an anonymous listener. */
  async viewerOf(caller: TokenCaller | null, ticket: string | undefined): Promise<StreamViewer> {
    if (ticket !== undefined) {
      const spent = await this.tickets.spend(ticket)
      if (spent?.userId == null) throw invalidTicket()
      const token: VerifiedToken = { userId: spent.userId, jti: spent.data.jti, sessionId: spent.data.sessionId, expiresAt: new Date(spent.data.tokenExpiresAt) }
      const user = token.expiresAt.getTime() > Date.now() ? await this.auth.userOfLiveToken(token) : undefined
      if (!user) throw invalidTicket()
      return this.viewer(user, token)
    }
    if (caller) return this.viewer(caller.user, caller.token)
    return { userId: null, isSuperuser: false, mayWrite: false, token: undefined, orgRoles: new Map(), withheld: new Map(), secondFactor: false, blocked: new Set() }
  }

  private async viewer(user: { id: number; isSuperuser: boolean }, token: VerifiedToken): Promise<StreamViewer> {
    const [{ roles, withheld, secondFactor }, blocked] = await Promise.all([this.options.facts.grants(user.id), this.options.facts.blocked([user.id])])
    return { userId: user.id, isSuperuser: user.isSuperuser, mayWrite: false, token, orgRoles: roles, withheld, secondFactor, blocked: blocked.get(user.id) ?? new Set() }
  }

  /**
   * Opens a stream: replays what the client missed after `lastEventId`, then follows new events.
   * 429 past the per-user or per-address limit. Returns the function that closes it.
   */
  async open(viewer: StreamViewer, clientAddress: string, lastEventId: number | undefined, sink: StreamSink): Promise<() => void> {
    const address = this.options.clientOf(clientAddress)
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
    /** Writes the event if the viewer may see it and has not yet; the bytes written. */
    const deliver = (event: ChangeEvent, context: EventContext): number => {
      followMemberships(viewer, event, context)
      if (!visibleTo(viewer, event, context) || recent.has(event.id)) return 0
      recent.add(event.id)
      if (recent.size > RECENT_IDS) recent.delete(recent.values().next().value as number)
      const written = sink.event(asWritten(event))
      // A ban ends the banned user's streams in every process as its event arrives, after telling them.
      if (event.type === 'user.banned' && viewer.userId !== null && event.userId === viewer.userId) queueMicrotask(() => close())
      return written
    }
    // Live events wait while the replay runs, so the client gets them in order after it.
    let waiting: { event: ChangeEvent; context: EventContext }[] | undefined = []
    // A client that stopped reading is dropped before its buffer grows past the bound (a replay
    // keeps its own, smaller bound, waiting for the client).
    const dropIfBehind = () => {
      if (waiting || sink.backlog() <= STREAM_MAX_BACKLOG_BYTES) return
      this.dropped += 1
      drop()
    }
    const onEvents = (events: ChangeEvent[], context: EventContext) => {
      if (!waiting) {
        for (const event of events) deliver(event, context)
        return dropIfBehind()
      }
      for (const event of events) waiting.push({ event, context })
      if (waiting.length > HELD_MAX) drop()
    }
    let unsubscribe: () => void
    try {
      unsubscribe = await this.feed.subscribe(onEvents)
    } catch (error) {
      uncount()
      throw error
    }
    let closed = false
    const heartbeat = setInterval(() => {
      sink.heartbeat()
      dropIfBehind()
    }, this.options.heartbeatMs)
    const untilExpiry = viewer.token ? Math.min(MAX_TIMER_MS, Math.max(0, viewer.token.expiresAt.getTime() - Date.now())) : undefined
    const expiry = untilExpiry === undefined ? undefined : setTimeout(() => close(), untilExpiry)
    const stream: OpenStream = { viewer, close: () => close() }
    // How it ends: `end` (the client is told it is over), `abort` (the connection drops with its
    // backlog), or `none`: it never started (the replay failed), and the caller answers with the error.
    const close = (how: 'end' | 'abort' | 'none' = 'end') => {
      if (closed) return
      closed = true
      clearInterval(heartbeat)
      clearTimeout(expiry)
      unsubscribe()
      this.streams.delete(stream)
      uncount()
      if (how === 'end') sink.end()
      else if (how === 'abort') sink.abort()
    }
    const drop = () => close('abort')
    this.streams.add(stream)
    // Its token is checked with the others' from now on (the job idles while no stream is open).
    if (viewer.token) this.wake('stream-sessions')
    try {
      if (lastEventId !== undefined) await this.replay(lastEventId, deliver, sink, { closed: () => closed, drop })
    } catch (error) {
      close('none')
      throw error
    }
    if (closed) return close
    const held = waiting
    waiting = undefined
    for (const { event, context } of held) deliver(event, context)
    dropIfBehind()
    return close
  }

  /** Open streams in this process (metrics, tests). */
  get openStreams(): number {
    return this.streams.size
  }

  /** Streams dropped in this process because their client fell behind (metrics, tests). */
  dropped = 0

  /**
   * Sends what the client missed, read a batch at a time: whenever the client has more than a
   * little unsent, the replay waits for it to take it (a client that takes nothing for
   * REPLAY_DRAIN_MS is dropped), so a replay holds about REPLAY_DRAIN_AT_BYTES per stream. Past
   * REPLAY_MAX events or REPLAY_MAX_BYTES the client is told to reload instead.
   */
  private async replay(lastEventId: number, deliver: (event: ChangeEvent, context: EventContext) => number, sink: StreamSink, stream: { closed(): boolean; drop(): void }): Promise<void> {
    const oldest = await this.changeEvents.oldestId()
    // Events after the client's last one were dropped (past the retention window): it must reload.
    if (oldest !== undefined && oldest > lastEventId + 1) return sink.reload()
    let after = lastEventId
    let bytes = 0
    for (let read = 0; read < REPLAY_MAX; read += REPLAY_BATCH) {
      const events = await this.changeEvents.listAfter(after, REPLAY_BATCH)
      // As a live event is checked: against the posts and rules as they are now.
      const context = await contextOf(this.options.facts, events)
      for (const event of events) {
        if (stream.closed()) return
        if (bytes >= REPLAY_MAX_BYTES) return sink.reload()
        bytes += deliver(event, context)
        if (sink.backlog() > REPLAY_DRAIN_AT_BYTES && !(await sink.drained(REPLAY_DRAIN_MS))) {
          this.dropped += 1
          return stream.drop()
        }
      }
      const last = events[events.length - 1]
      if (!last || events.length < REPLAY_BATCH) return
      after = last.id
    }
    sink.reload()
  }

  /** The change feed's job run: reads what is new for the streams open here (ChangeFeed.run). */
  readChanges(): Promise<boolean> {
    return this.feed.run()
  }

  /** The `stream-sessions` job's run: ends the streams whose token stopped working, one check per token; false when no stream is open. */
  async checkTokens(): Promise<boolean> {
    if (this.streams.size === 0) return false
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
    await this.refreshBlocks()
    return true
  }

  /** Whom each signed-in viewer blocked, read again for every stream of the process in one query: a block reaches open streams within a check. */
  private async refreshBlocks(): Promise<void> {
    const viewers = [...this.streams].map((stream) => stream.viewer).filter((viewer) => viewer.userId !== null)
    if (viewers.length === 0) return
    try {
      const blocked = await this.options.facts.blocked([...new Set(viewers.map((viewer) => viewer.userId!))])
      for (const viewer of viewers) viewer.blocked = blocked.get(viewer.userId!) ?? new Set()
    } catch (error) {
      this.logger.warn({ err: error }, 'reading the streams\' blocks failed; reading them again shortly')
    }
  }
}

function count<K>(counts: Map<K, number>, key: K, by: number): void {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}
