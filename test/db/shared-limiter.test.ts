// The limiter keeps a bounded cache of windows whatever the number of client addresses, and
// forgetting a window loses no count: the store (here the database) holds every one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { bindRepository } from '../../src/db/repository.js'
import { DatabaseCounterStore } from '../../src/modules/rate-limits/counter-store.js'
import { rateLimitsFunctions } from '../../src/modules/rate-limits/rate-limits.repository.js'
import { SharedLimiter } from '../../src/modules/rate-limits/shared-limiter.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'

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
