// What raises the risk at a door, counted in the limiter's shared store (Redis or the database)
// over CAPTCHA_RISK_WINDOW_SECONDS, so every process sees the same counts: failed attempts from
// an address and on an account, and sign-ups from one network (/24 for IPv4, /64 for IPv6).
import { isIP } from 'node:net'

import { hashedKey } from '../../shared/hashed-key.js'

/** The limiter's store (src/features/rate-limits): a windowed counter, read without writing by `peek`. */
export interface RiskCounters {
  hit(key: string, windowMs: number, cost: number): Promise<{ count: number }>
  peek(key: string): Promise<number>
}

/** The /24 of an IPv4 address or the /64 of an IPv6 one: a network one actor holds. */
export function networkOf(address: string): string {
  if (isIP(address) === 4) return address.split('.').slice(0, 3).join('.')
  if (isIP(address) === 6) {
    const [head = '', tail = ''] = address.split('::')
    const left = head ? head.split(':') : []
    const right = tail ? tail.split(':') : []
    const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left
    return groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')
  }
  return address
}

export class RiskSignals {
  constructor(
    private readonly counters: RiskCounters,
    private readonly windowSeconds: number,
  ) {}

  /** Adds to the key's count, or (add 0) reads it, which costs a read only. */
  private count(key: string, add: number): Promise<number> {
    if (add === 0) return this.counters.peek(`risk:${key}`)
    return this.counters.hit(`risk:${key}`, this.windowSeconds * 1000, add).then((state) => state.count)
  }

  /** An IPv4 address counts alone; an IPv6 client by its /64, as every per-address limit counts it. */
  failuresFrom(address: string, add = 0): Promise<number> {
    return this.count(`fail:addr:${isIP(address) === 6 ? networkOf(address) : address}`, add)
  }

  failuresOn(subject: string, add = 0): Promise<number> {
    return this.count(`fail:acct:${hashedKey(subject)}`, add)
  }

  signupsFrom(address: string, add = 0): Promise<number> {
    return this.count(`signup:net:${networkOf(address)}`, add)
  }
}
