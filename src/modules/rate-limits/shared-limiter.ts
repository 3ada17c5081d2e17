// Fixed-window limits shared by every process through a CounterStore, at close to no cost per
// request. A key's first request, every request of a small budget (at most EXACT_UP_TO), and
// every request once half of a large budget is used go to the store at once (one round trip),
// so they are decided exactly. Far from the limit of a large budget, hits are counted here and
// sent to the store together every FLUSH_MS: across P processes a window can overshoot by what
// they counted in one flush interval, never more. Once a window is used up, this process
// refuses locally until it ends.
import { hashedKey } from '../../shared/hashed-key.js'
import type { CounterStore } from './counter-store.js'

export interface LimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window ends. */
  resetSeconds: number
}

interface KeyState {
  known: number
  pending: number
  resetAt: number
  windowMs: number
}

const EXACT_UP_TO = 1000
// Long enough that counting costs the store a write every tenth of a second per busy key, short
// enough that P processes overshoot a large budget by little.
const FLUSH_MS = 100

export class SharedLimiter {
  private readonly states = new Map<string, KeyState>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: CounterStore,
    private readonly onFlushError: (error: unknown) => void,
  ) {}

  /**
   * Decides without the store when it can (a spent window, or far from a large limit), counting
   * the request here; undefined when the decision needs the store (then call consume()).
   */
  consumeLocally(key: string, limit: number, windowMs: number): LimitDecision | undefined {
    const now = Date.now()
    const state = this.states.get(key)
    if (state === undefined || now >= state.resetAt) return undefined
    const used = state.known + state.pending
    if (used >= limit) return this.decision(false, limit, used + 1, state.resetAt, now, windowMs)
    if (limit <= EXACT_UP_TO || used + 1 > limit / 2) return undefined
    state.pending += 1
    this.scheduleFlush()
    return this.decision(true, limit, used + 1, state.resetAt, now, windowMs)
  }

  /** Counts one request against `key`; throws when the store cannot be reached for an exact decision. */
  async consume(key: string, limit: number, windowMs: number): Promise<LimitDecision> {
    const local = this.consumeLocally(key, limit, windowMs)
    if (local !== undefined) return local
    const now = Date.now()
    let state = this.states.get(key)
    if (state !== undefined && now >= state.resetAt) state = undefined
    const cost = (state?.pending ?? 0) + 1
    if (state) state.pending = 0
    const window = await this.store.hit(hashedKey(key), windowMs, cost)
    this.states.set(key, { known: window.count, pending: 0, resetAt: window.resetAt, windowMs })
    return this.decision(window.count <= limit, limit, window.count, window.resetAt, now, windowMs)
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private decision(allowed: boolean, limit: number, used: number, resetAt: number, now: number, windowMs: number): LimitDecision {
    const resetSeconds = Math.min(Math.ceil(windowMs / 1000), Math.max(1, Math.ceil((resetAt - now) / 1000)))
    return { allowed, limit, remaining: Math.max(0, limit - used), resetSeconds }
  }

  private scheduleFlush(): void {
    this.timer ??= setInterval(() => void this.flush(), FLUSH_MS).unref()
  }

  /** Sends the hits counted here to the store, and forgets windows that have ended. */
  private async flush(): Promise<void> {
    const now = Date.now()
    let waiting = false
    for (const [key, state] of this.states) {
      if (now >= state.resetAt) {
        this.states.delete(key)
        continue
      }
      if (state.pending === 0) continue
      const cost = state.pending
      state.pending = 0
      waiting = true
      try {
        const window = await this.store.hit(hashedKey(key), state.windowMs, cost)
        state.known = window.count
        state.resetAt = window.resetAt
      } catch (error) {
        this.onFlushError(error)
      }
    }
    if (!waiting && this.states.size === 0) this.stop()
  }
}
