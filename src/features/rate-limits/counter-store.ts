// Where request counters live: Redis when configured, the database otherwise. Either way one
// hit is one atomic round trip (a Lua script, or one upsert), so every process counts the same,
// and so is a release: hits counted ahead (a lease) and not used, given back while the window lasts.
import type { Redis } from 'ioredis'

import type { RateLimitsRepository } from './rate-limits.repository.js'

export interface WindowState {
  /** Hits in the current window, this one included. */
  count: number
  /** Epoch milliseconds at which the window ends. */
  resetAt: number
}

export interface CounterStore {
  hit(key: string, windowMs: number, cost: number): Promise<WindowState>
  /** Takes `amount` hits back from the key's current window; nothing once it has ended. */
  release(key: string, amount: number): Promise<void>
  /** The key's count in its current window (0 once it has ended), read without writing. */
  peek(key: string): Promise<number>
}

export class DatabaseCounterStore implements CounterStore {
  constructor(private readonly repository: RateLimitsRepository) {}

  async hit(key: string, windowMs: number, cost: number): Promise<WindowState> {
    const { current, ttl } = await this.repository.hitRateLimit(key, windowMs, cost)
    return { count: current, resetAt: Date.now() + ttl }
  }

  release(key: string, amount: number): Promise<void> {
    return this.repository.releaseRateLimit(key, amount)
  }

  peek(key: string): Promise<number> {
    return this.repository.peekRateLimit(key)
  }
}

// INCRBY, and the window's expiry set by the hit that opened it; returns the count and the TTL.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { count, ttl }`

// DECRBY while the window lasts (a key that has expired is not brought back), never below zero.
const RELEASE_SCRIPT = `
if redis.call('PTTL', KEYS[1]) > 0 then
  local count = redis.call('DECRBY', KEYS[1], ARGV[1])
  if count < 0 then redis.call('INCRBY', KEYS[1], -count) end
end
return 0`

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'request-limit:',
  ) {}

  async hit(key: string, windowMs: number, cost: number): Promise<WindowState> {
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, cost, windowMs)) as [number, number]
    return { count, resetAt: Date.now() + ttl }
  }

  async release(key: string, amount: number): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + key, amount)
  }

  async peek(key: string): Promise<number> {
    return Number((await this.redis.get(this.prefix + key)) ?? 0)
  }
}
