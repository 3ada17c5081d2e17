// The limiter keeps a bounded cache of windows whatever the number of client addresses, and
// forgetting a window loses no count: the store (here the database) holds every one. Budgets up
// to a thousand are taken in leases: processes together let through exactly the limit, far from
// it with a round trip per many requests, and a lease left idle goes back to the store.
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { bindRepository } from '../../db/repository.js'
import type { CounterStore } from './counter-store.js'
import { DatabaseCounterStore, RedisCounterStore } from './counter-store.js'
import { rateLimitsFunctions } from './rate-limits.repository.js'
import { SharedLimiter } from './shared-limiter.js'

let t: TestApp
let limiter: SharedLimiter
beforeAll(async () => {
  t = await createTestApp()
  limiter = new SharedLimiter(new DatabaseCounterStore(bindRepository(rateLimitsFunctions, t.db)), (error) => {
    throw error
  }, 100)
})
afterAll(async () => {
  limiter.stop()
  await t.close()
})

describe('the shared limiter', () => {
  it('keeps at most its bound of windows, however many addresses call, and forgets no count', async () => {
    const tag = `${process.pid}-${Date.now()}`
    for (let hit = 1; hit <= 3; hit++) expect((await limiter.consume(`ip:first-${tag}`, 3, 60_000)).allowed).toBe(true)
    for (let address = 0; address < 1_000; address++) {
      await limiter.consume(`ip:${tag}-${address}`, 300, 60_000)
      expect(limiter.keptWindows).toBeLessThanOrEqual(100)
    }
    // The first address was forgotten here long ago, but its window is in the store: still spent.
    expect(await limiter.consume(`ip:first-${tag}`, 3, 60_000)).toMatchObject({ allowed: false, remaining: 0 })
  })
})

/** A store that counts its round trips. */
function counted(store: CounterStore) {
  const trips = { hits: 0, releases: 0 }
  const wrapped: CounterStore = {
    hit: (key, windowMs, cost) => {
      trips.hits += 1
      return store.hit(key, windowMs, cost)
    },
    release: (key, amount) => {
      trips.releases += 1
      return store.release(key, amount)
    },
    peek: (key) => store.peek(key),
  }
  return { store: wrapped, trips }
}

const redisUrl = inject('redisUrl')
const stores: [string, () => { store: CounterStore; close(): Promise<void> }][] = [
  ['the database', () => ({ store: new DatabaseCounterStore(bindRepository(rateLimitsFunctions, t.db)), close: async () => {} })],
  ...(redisUrl
    ? [
        [
          'Redis',
          () => {
            const redis = new Redis(redisUrl)
            return { store: new RedisCounterStore(redis, `test-limiter-${process.pid}:`), close: async () => void (await redis.quit()) }
          },
        ] as [string, () => { store: CounterStore; close(): Promise<void> }],
      ]
    : []),
]

describe.each(stores)('leases (counters in %s)', (_name, open) => {
  let backing: { store: CounterStore; close(): Promise<void> }
  beforeAll(() => {
    backing = open()
  })
  afterAll(() => backing.close())

  const limiters = (count: number) => {
    const { store, trips } = counted(backing.store)
    const made = Array.from({ length: count }, () => new SharedLimiter(store, (error) => {
      throw error
    }))
    return { made, trips, stop: () => made.forEach((limiter) => limiter.stop()) }
  }

  it('read a count without adding to it, and read 0 once the window has ended', async () => {
    const key = `peek-${Math.random()}`
    expect(await backing.store.peek(key)).toBe(0)
    await backing.store.hit(key, 60_000, 3)
    expect(await backing.store.peek(key)).toBe(3)
    expect(await backing.store.peek(key)).toBe(3)
    await backing.store.hit(`${key}-short`, 1, 2)
    // The window's end is the event: its millisecond passed.
    await waitFor(async () => (await backing.store.peek(`${key}-short`)) === 0)
  })

  it('let two processes together through exactly the limit, with a round trip per many requests far from it', async () => {
    const { made, trips, stop } = limiters(2)
    try {
      const key = `user:${process.pid}-${Date.now()}-together`
      let allowed = 0
      let refusedInARow = 0
      let requests = 0
      for (let turn = 0; refusedInARow < 20; turn++) {
        const decision = await made[turn % 2]!.consume(key, 200, 60_000)
        requests += 1
        if (decision.allowed) {
          allowed += 1
          refusedInARow = 0
        } else refusedInARow += 1
        if (requests === 100) {
          // Far from the limit: a lease (a sixteenth of what is left) serves a dozen requests.
          expect(trips.hits).toBeLessThan(20)
        }
      }
      expect(allowed).toBe(200)
    } finally {
      stop()
    }
  })

  it('give an idle lease back, so the caller gets the whole budget at another process', async () => {
    const { made, stop } = limiters(2)
    const [first, second] = made as [SharedLimiter, SharedLimiter]
    try {
      const key = `user:${process.pid}-${Date.now()}-moved`
      expect((await first.consume(key, 200, 60_000)).allowed).toBe(true)
      let allowed = 1
      while ((await second.consume(key, 200, 60_000)).allowed) allowed += 1
      // The first process still holds the rest of its lease, unspent.
      expect(allowed).toBeLessThan(200)
      // Idle for a second, the lease goes back: within the minute's window, only that lets the
      // second process reach the whole budget.
      await waitFor(async () => {
        while ((await second.consume(key, 200, 60_000)).allowed) allowed += 1
        return allowed === 200
      })
      expect(allowed).toBe(200)
    } finally {
      stop()
    }
  })

  it('count down by one per request in one process, as the headers show', async () => {
    const { made, stop } = limiters(1)
    try {
      const key = `user:${process.pid}-${Date.now()}-headers`
      const remaining: number[] = []
      for (let request = 0; request < 40; request++) remaining.push((await made[0]!.consume(key, 100, 60_000)).remaining)
      expect(remaining).toEqual(Array.from({ length: 40 }, (_, index) => 99 - index))
    } finally {
      stop()
    }
  })
})
