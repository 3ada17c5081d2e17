// Fixed-window limits shared by every process through a CounterStore, at close to no cost per
// request, and never more requests let through than a limit allows.
// - Budgets up to EXACT_UP_TO (the usual per-user and per-address limits) are taken from the
//   store in leases: one round trip counts a share of what is left (a sixteenth, at most
//   MAX_LEASE) for this process, whose next requests spend it without the store. A lease that
//   would pass the limit is cut to what is left (the excess given back at once), so every process
//   together lets through the limit exactly; near it the share is one request, decided in the
//   store. A process that stops using a lease gives the rest back after LEASE_IDLE_MS, so a
//   caller that moves to another process gets their whole budget there.
// - `exact` budgets (those that guard credentials and mail) count every request in the store.
// - Larger budgets are counted here far from their limit and sent to the store together every
//   FLUSH_MS: across P processes a window can overshoot by what they counted in one flush
//   interval, never more. Once half is used they are decided in the store.
// Once a window is used up as far as this process knows, it refuses locally and asks the store
// again after RECHECK_MS (a lease given back elsewhere may have freed some).
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
  /** The window's count in the store when this process last heard it, our unspent lease included. */
  known: number
  /** Hits counted here and not yet sent (large budgets). */
  pending: number
  /** Hits of our lease not yet spent. */
  leased: number
  resetAt: number
  windowMs: number
  /** When the store last decided (Date.now()). */
  checkedAt: number
  /** When a request last spent from the lease. */
  spentAt: number
}

const EXACT_UP_TO = 1000
/** A lease is this fraction of what is left of the budget... */
const LEASE_SHARE = 16
/** ...and at most this many requests. */
const MAX_LEASE = 64
/** An unspent lease idle this long goes back to the store. */
const LEASE_IDLE_MS = 1000
/** A window spent as far as this process knows is asked about again after this long. */
const RECHECK_MS = 1000
/** No lease is given back this close to its window's end (the store might start a new one first). */
const RELEASE_MARGIN_MS = 1000

/** The key a count is stored under: hashed, so any key has a bounded length, behind its readable kind ("login-address:…"). */
export function storeKeyOf(key: string): string {
  const colon = key.indexOf(':')
  return colon > 0 ? key.slice(0, colon + 1) + hashedKey(key) : hashedKey(key)
}
// Long enough that counting costs the store a write every tenth of a second per busy key, short
// enough that P processes overshoot a large budget by little. In the service the scheduler's
// `limiter-flush` job runs the flush at this interval (src/services.ts).
export const FLUSH_MS = 100

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
    /** Asks for a flush within FLUSH_MS (the scheduler's job); without it, the limiter keeps its own timer (used alone, in tests). */
    private readonly flushSoon?: () => void,
  ) {}

  /** How many windows this process keeps (at most `maxKeptWindows`, plus those still waiting to be sent). */
  get keptWindows(): number {
    return this.states.size
  }

  /**
   * Decides without the store when it can (from a lease, a spent window, or far from a large
   * limit unless `exact`), counting the request here; undefined when the decision needs the
   * store (then call consume()).
   */
  consumeLocally(key: string, limit: number, windowMs: number, exact = false): LimitDecision | undefined {
    const now = Date.now()
    const state = this.states.get(key)
    if (state === undefined || now >= state.resetAt) return undefined
    if (state.leased > 0 && !exact) {
      state.leased -= 1
      state.spentAt = now
      return this.decision(true, limit, Math.min(limit, state.known - state.leased), state.resetAt, now, windowMs)
    }
    const used = state.known + state.pending
    if (used >= limit) return now - state.checkedAt < RECHECK_MS || exact ? this.decision(false, limit, used + 1, state.resetAt, now, windowMs) : undefined
    if (exact || limit <= EXACT_UP_TO || used + 1 > limit / 2) return undefined
    state.pending += 1
    this.scheduleFlush()
    return this.decision(true, limit, used + 1, state.resetAt, now, windowMs)
  }

  /**
   * Counts one request against `key`; throws when the store cannot be reached for a decision.
   * `exact`: every request that is not refused goes to the store, whatever the budget.
   */
  async consume(key: string, limit: number, windowMs: number, exact = false): Promise<LimitDecision> {
    const local = this.consumeLocally(key, limit, windowMs, exact)
    if (local !== undefined) return local
    if (!exact && limit <= EXACT_UP_TO) return this.lease(key, limit, windowMs)
    const now = Date.now()
    let state = this.states.get(key)
    if (state !== undefined && now >= state.resetAt) state = undefined
    const cost = (state?.pending ?? 0) + 1
    if (state) state.pending = 0
    const window = await this.store.hit(storeKeyOf(key), windowMs, cost)
    this.keep(key, { known: window.count, pending: 0, leased: 0, resetAt: window.resetAt, windowMs, checkedAt: Date.now(), spentAt: 0 })
    return this.decision(window.count <= limit, limit, window.count, window.resetAt, now, windowMs)
  }

  /** Takes a lease for this request and the next few; cut to what is left near the limit. */
  private async lease(key: string, limit: number, windowMs: number): Promise<LimitDecision> {
    const now = Date.now()
    const before = this.states.get(key)
    const knownUsed = before !== undefined && now < before.resetAt ? before.known : 0
    const wanted = Math.max(1, Math.min(MAX_LEASE, Math.floor((limit - knownUsed) / LEASE_SHARE)))
    const storeKey = storeKeyOf(key)
    const window = await this.store.hit(storeKey, windowMs, wanted)
    let count = window.count
    let granted = wanted
    if (count > limit) {
      // Past the limit: what is over goes back at once, so that it never refuses anyone else.
      const excess = Math.min(wanted, count - limit)
      await this.store.release(storeKey, excess)
      granted -= excess
      count -= excess
    }
    const state = this.states.get(key)
    // Requests of this process that leased at the same time keep every lease they got.
    const unspent = state !== undefined && Date.now() < state.resetAt ? state.leased : 0
    this.keep(key, { known: count, pending: 0, leased: unspent + Math.max(0, granted - 1), resetAt: window.resetAt, windowMs, checkedAt: Date.now(), spentAt: now })
    if (granted > 1) this.scheduleFlush()
    if (granted === 0) return this.decision(false, limit, limit + 1, window.resetAt, now, windowMs)
    return this.decision(true, limit, Math.min(limit, count - (granted - 1)), window.resetAt, now, windowMs)
  }

  private keep(key: string, state: KeyState): void {
    this.states.set(key, state)
    if (this.states.size > this.maxKeptWindows) this.forget(Date.now())
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
    if (this.flushSoon) this.flushSoon()
    else this.timer ??= setInterval(() => void this.flush(), FLUSH_MS).unref()
  }

  /**
   * Brings the kept windows down to nine tenths of the bound (so that this runs once per many
   * new keys, not on each): ended ones first, then the oldest with nothing waiting to be sent,
   * their unspent leases given back.
   */
  private forget(now: number): void {
    const target = Math.floor(this.maxKeptWindows * 0.9)
    for (const [key, state] of this.states) {
      if (now >= state.resetAt) this.states.delete(key)
    }
    for (const [key, state] of this.states) {
      if (this.states.size <= target) break
      if (state.pending > 0) continue
      this.giveBack(key, state, now)
      this.states.delete(key)
    }
  }

  /**
   * Gives the unspent lease back without waiting, unless its window is about to end (the store
   * might start the next one first). A failure is reported; the hits then stay counted until the
   * window ends.
   */
  private giveBack(key: string, state: KeyState, now: number): void {
    const amount = state.leased
    if (amount === 0 || state.resetAt - now <= RELEASE_MARGIN_MS) return
    state.leased = 0
    state.known -= amount
    this.store.release(storeKeyOf(key), amount).catch((error: unknown) => this.onFlushError(error))
  }

  /**
   * Sends the hits counted here to the store, gives idle leases back, and forgets windows that
   * have ended; false when nothing was left waiting (the job backs off until the next count).
   */
  async flush(): Promise<boolean> {
    const now = Date.now()
    let waiting = false
    for (const [key, state] of this.states) {
      if (now >= state.resetAt) {
        this.states.delete(key)
        continue
      }
      if (state.leased > 0) {
        waiting = true
        if (now - state.spentAt >= LEASE_IDLE_MS) this.giveBack(key, state, now)
      }
      if (state.pending === 0) continue
      const cost = state.pending
      state.pending = 0
      waiting = true
      try {
        const window = await this.store.hit(storeKeyOf(key), state.windowMs, cost)
        state.known = window.count
        state.resetAt = window.resetAt
        state.checkedAt = Date.now()
      } catch (error) {
        this.onFlushError(error)
      }
    }
    if (!waiting && this.states.size === 0) this.stop()
    return waiting
  }
}
