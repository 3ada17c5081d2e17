// The realtime stream for a browser: a ticket bought with the access token (EventSource cannot
// send a header), then an EventSource; when it drops, a new ticket and a reconnection that
// resumes after the last event received (`last_event_id`), so nothing is missed or repeated.

/** The event types the service sends (change events), and `reload`. */
export const CHANGE_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.email_verified',
  'user.deleted',
  'user.restored',
  'user.removed',
  'user.banned',
  'user.unbanned',
  'post.created',
  'post.updated',
  'post.published',
  'post.scheduled',
  'post.deleted',
  'post.trashed',
  'post.restored',
  'post.removed',
  'post.reactions_changed',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'comment.hidden',
  'org.created',
  'org.updated',
  'org.deleted',
  'membership.added',
  'membership.role_changed',
  'membership.removed',
  'file.created',
  'file.deleted',
] as const

export interface ChangeEventMessage {
  /** Resume after this one. */
  id: string
  type: string
  timestamp: string
  data: unknown
}

export interface StreamOptions {
  /** Each event, in order. */
  onEvent(event: ChangeEventMessage): void
  /** The client missed more than the service keeps: reload what you show. */
  onReload?(): void
  /** The stream is open (again). */
  onOpen?(): void
  /** Resume after this event id (the last one a previous stream delivered). */
  lastEventId?: string
  /** Types to listen to; every change event by default. */
  types?: readonly string[]
  /** Milliseconds before a reconnection (doubling, to 30 s, while it keeps failing). */
  retryMs?: number
  /** An EventSource constructor where globalThis has none. */
  EventSource?: EventSourceConstructor
}

export interface Subscription {
  /** The last event id received. */
  readonly lastEventId: string | undefined
  close(): void
}

interface EventSourceLike {
  readonly readyState: number
  onopen: ((event: unknown) => void) | null
  onerror: ((event: unknown) => void) | null
  addEventListener(type: string, listener: (event: { data: string; lastEventId: string }) => void): void
  close(): void
}
type EventSourceConstructor = new (url: string, init?: { withCredentials?: boolean }) => EventSourceLike

const CLOSED = 2

/** Opens the stream: `ticket()` buys a ticket (null: listen anonymously), `url` builds its address. */
export function subscribe(options: StreamOptions, ticket: () => Promise<string | null>, url: (query: URLSearchParams) => string): Subscription {
  const Source = options.EventSource ?? (globalThis as { EventSource?: EventSourceConstructor }).EventSource
  if (!Source) throw new Error('The event stream needs EventSource (a browser), or one passed as options.EventSource')
  let lastEventId = options.lastEventId
  let source: EventSourceLike | undefined
  let closed = false
  let delay = options.retryMs ?? 1000
  let timer: ReturnType<typeof setTimeout> | undefined

  const connect = async () => {
    if (closed) return
    let bought: string | null
    try {
      bought = await ticket()
    } catch {
      return retry()
    }
    if (closed) return
    const query = new URLSearchParams()
    if (bought) query.set('ticket', bought)
    if (lastEventId) query.set('last_event_id', lastEventId)
    const opened = new Source(url(query))
    source = opened
    opened.onopen = () => {
      delay = options.retryMs ?? 1000
      options.onOpen?.()
    }
    for (const type of options.types ?? CHANGE_EVENT_TYPES) {
      opened.addEventListener(type, (event) => {
        lastEventId = event.lastEventId || lastEventId
        const body = JSON.parse(event.data) as { type: string; timestamp: string; data: unknown }
        options.onEvent({ id: event.lastEventId, ...body })
      })
    }
    opened.addEventListener('reload', () => options.onReload?.())
    // A ticket opens one stream: EventSource's own reconnection would present a spent one, so
    // every drop is a fresh start with a new ticket, after the last event received.
    opened.onerror = () => {
      opened.close()
      if (source === opened) retry()
    }
  }
  const retry = () => {
    if (closed) return
    timer = setTimeout(() => void connect(), delay)
    delay = Math.min(delay * 2, 30_000)
  }
  void connect()
  return {
    get lastEventId() {
      return lastEventId
    },
    close() {
      closed = true
      clearTimeout(timer)
      if (source && source.readyState !== CLOSED) source.close()
    },
  }
}
