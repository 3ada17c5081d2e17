// What raises the risk at a door, counted in the limiter's shared store (Redis or the database)
// over CAPTCHA_RISK_WINDOW_SECONDS, so every process sees the same counts: failed attempts from
// an address and on an account, and sign-ups from one network (/24 for IPv4, /64 for IPv6).
import { hashedKey } from '../../shared/hashed-key.js'
import { addressNetwork } from '../rate-limits/index.js'

/** The limiter's store (src/features/rate-limits): a windowed counter, read without writing by `peek`. */
export interface RiskCounters {
  hit(key: string, windowMs: number, cost: number): Promise<{ count: number }>
  peek(key: string): Promise<number>
}

/**
 * The /24 of an IPv4 address (an IPv4-mapped IPv6 one too) or the /64 of an IPv6 one: a network one
 * actor holds. The limiter's address grouping (src/features/rate-limits) parses the address.
 */
export function networkOf(address: string): string {
  return addressNetwork(address, 64)
}

export class RiskSignals {
  constructor(
    private readonly counters: RiskCounters,
    private readonly windowSeconds: number,
    /** The client an address counts as, as every per-address limit counts it (RATE_LIMIT_IPV6_PREFIX). */
    private readonly clientOf: (address: string) => string,
  ) {}

  /** Adds to the key's count, or (add 0) reads it, which costs a read only. */
  private count(key: string, add: number): Promise<number> {
    if (add === 0) return this.counters.peek(`risk:${key}`)
    return this.counters.hit(`risk:${key}`, this.windowSeconds * 1000, add).then((state) => state.count)
  }

  /** Failures count per client, as every per-address limit counts one (an IPv6 client by its prefix). */
  failuresFrom(address: string, add = 0): Promise<number> {
    return this.count(`fail:addr:${this.clientOf(address)}`, add)
  }

  failuresOn(subject: string, add = 0): Promise<number> {
    return this.count(`fail:acct:${hashedKey(subject)}`, add)
  }

  signupsFrom(address: string, add = 0): Promise<number> {
    return this.count(`signup:net:${networkOf(address)}`, add)
  }
}
