// One reader of the change events per process, fanning them out to the streams open in it. It
// reads the events after the last one it saw whenever it is woken (a commit in this process, a
// signal from another, its job's timer while streams are open: the scheduler's `change-feed`
// job, registered in src/services.ts). On PostgreSQL an event's id is taken
// before its transaction commits, so a lower id can appear after a higher one: ids skipped over
// are looked for again for a few seconds before they are taken for rolled back.
import type { ChangeEvent } from '../change-events/index.js'
import type { PostFacts } from '../posts/index.js'

/**
 * What is true now of what a batch of events is about, read once per batch for every stream of
 * the process (and per batch of a replay): the same facts decide live and replayed events.
 */
export interface EventContext {
  /** The live posts the events name, as they are now; a post that is gone (deleted, hidden with its author, removed) is absent. */
  posts: ReadonlyMap<number, PostFacts>
  /** Whether the organizations the membership events name require a second factor of members. */
  mfaRules: ReadonlyMap<number, boolean>
}

export interface ChangeEventSource {
  listAfter(afterId: number, limit: number): Promise<ChangeEvent[]>
  listByIds(ids: number[]): Promise<ChangeEvent[]>
  latestId(): Promise<number>
}

type Listener = (events: ChangeEvent[], context: EventContext) => void

const BATCH = 500
/** How long an id skipped over is looked for (a transaction that took its id and has not committed yet). */
const GAP_WAIT_MS = 10_000
const MAX_GAPS = 10_000

export class ChangeFeed {
  private readonly listeners = new Set<Listener>()
  private readonly gaps = new Map<number, number>()
  private lastSeen: number | undefined

  constructor(
    private readonly source: ChangeEventSource,
    /** What is true now of a batch's posts and organizations: read once per batch for every stream. */
    private readonly contextOf: (events: readonly ChangeEvent[]) => Promise<EventContext>,
    /** Runs the feed's job soon. */
    private readonly wake: () => void,
  ) {}

  /** Reads new events soon. */
  kick(): void {
    if (this.listeners.size > 0) this.wake()
  }

  /**
   * The job's run: reads what is new for the streams open here. True while any stream listens
   * (the job keeps its rhythm: other processes' events on SQLite are found only by reading), false
   * when none does (it backs off; the first subscriber wakes it).
   */
  async run(): Promise<boolean> {
    await this.pass()
    return this.listeners.size > 0
  }

  /** Listens from now on (every event written after this resolves reaches `listener`); returns the unsubscribe. */
  async subscribe(listener: Listener): Promise<() => void> {
    if (this.lastSeen === undefined) this.lastSeen = await this.source.latestId()
    this.listeners.add(listener)
    this.wake()
    return () => {
      this.listeners.delete(listener)
      // Nobody listens: forget the position, so a later subscriber starts from its own now.
      if (this.listeners.size === 0) {
        this.lastSeen = undefined
        this.gaps.clear()
      }
    }
  }

  private async pass(): Promise<void> {
    for (;;) {
      const from = this.lastSeen
      if (from === undefined || this.listeners.size === 0) return
      const [fresh, late] = await Promise.all([this.source.listAfter(from, BATCH), this.source.listByIds([...this.gaps.keys()])])
      const events = [...late, ...fresh]
      // Read before the position moves: a failed read loses no event, the next run reads them again.
      const context = events.length > 0 ? await this.contextOf(events) : undefined
      if (this.lastSeen !== from) return
      const now = Date.now()
      for (const event of late) this.gaps.delete(event.id)
      let expected = from + 1
      for (const event of fresh) {
        for (let id = expected; id < event.id && this.gaps.size < MAX_GAPS; id++) this.gaps.set(id, now)
        expected = event.id + 1
      }
      for (const [id, since] of this.gaps) if (now - since > GAP_WAIT_MS) this.gaps.delete(id)
      const last = fresh[fresh.length - 1]
      if (last) this.lastSeen = last.id
      if (context) for (const listener of this.listeners) listener(events, context)
      if (fresh.length < BATCH) return
    }
  }
}
