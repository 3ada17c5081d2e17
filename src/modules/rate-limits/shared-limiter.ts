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

/** The key a count is stored under: hashed, so any key has a bounded length, behind its readable kind ("login-address:…"). */
export function storeKeyOf(key: string): string {
  const colon = key.indexOf(':')
  return colon > 0 ? key.slice(0, colon + 1) + hashedKey(key) : hashedKey(key)
}
// Long enough that counting costs the store a write every tenth of a second per busy key, short
// enough that P processes overshoot a large budget by little.
const FLUSH_MS = 100

/**
 * Windows kept here at most. They are a cache of the store, which holds every count: past this
 * many, ended windows and windows with nothing waiting to be sent are forgotten (the oldest
 * first), and a forgotten key's next request is decided by the store again. So memory stays
 * bounded however many client addresses call, and no count is lost.
 */
export const DEFAULT_MAX_KEPT_WINDOWS = 20_000

export class SharedLimiter {
  private readonly states = new Map<string, KeyState>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: CounterStore,
    private readonly onFlushError: (error: unknown) => void,
    private readonly maxKeptWindows = DEFAULT_MAX_KEPT_WINDOWS,
  ) {}

  /** How many windows this process keeps (at most `maxKeptWindows`, plus those still waiting to be sent). */
  get keptWindows(): number {
    return this.states.size
  }

  /**
   * Decides without the store when it can (a spent window, or far from a large limit unless
   * `exact`), counting the request here; undefined when the decision needs the store (then call
   * consume()).
   */
  consumeLocally(key: string, limit: number, windowMs: number, exact = false): LimitDecision | undefined {
    const now = Date.now()
    const state = this.states.get(key)
    if (state === undefined || now >= state.resetAt) return undefined
    const used = state.known + state.pending
    if (used >= limit) return this.decision(false, limit, used + 1, state.resetAt, now, windowMs)
    if (exact || limit <= EXACT_UP_TO || used + 1 > limit / 2) return undefined
    state.pending += 1
    this.scheduleFlush()
    return this.decision(true, limit, used + 1, state.resetAt, now, windowMs)
  }

  /**
   * Counts one request against `key`; throws when the store cannot be reached for an exact
   * decision. `exact`: every request that is not refused goes to the store, whatever the budget.
   */
  async consume(key: string, limit: number, windowMs: number, exact = false): Promise<LimitDecision> {
    const local = this.consumeLocally(key, limit, windowMs, exact)
    if (local !== undefined) return local
    const now = Date.now()
    let state = this.states.get(key)
    if (state !== undefined && now >= state.resetAt) state = undefined
    const cost = (state?.pending ?? 0) + 1
    if (state) state.pending = 0
    const window = await this.store.hit(storeKeyOf(key), windowMs, cost)
    this.states.set(key, { known: window.count, pending: 0, resetAt: window.resetAt, windowMs })
    if (this.states.size > this.maxKeptWindows) this.forget(Date.now())
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

  /**
   * Brings the kept windows down to nine tenths of the bound (so that this runs once per many
   * new keys, not on each): ended ones first, then the oldest with nothing waiting to be sent.
   */
  private forget(now: number): void {
    const target = Math.floor(this.maxKeptWindows * 0.9)
    for (const [key, state] of this.states) {
      if (now >= state.resetAt) this.states.delete(key)
    }
    for (const [key, state] of this.states) {
      if (this.states.size <= target) break
      if (state.pending === 0) this.states.delete(key)
    }
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
        const window = await this.store.hit(storeKeyOf(key), state.windowMs, cost)
        state.known = window.count
        state.resetAt = window.resetAt
      } catch (error) {
        this.onFlushError(error)
      }
    }
    if (!waiting && this.states.size === 0) this.stop()
  }
}
