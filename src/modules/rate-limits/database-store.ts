// A store for @fastify/rate-limit that keeps its counters in our database (used when no Redis
// is configured), so the limits hold across processes and restarts.
import type { Executor } from '../../db/schema.js'
import { hitRateLimit, readRateLimit } from './rate-limits.repository.js'
import type { WindowCount } from './rate-limits.repository.js'

type Callback = (error: Error | null, result?: WindowCount) => void

export function databaseRateLimitStore(db: Executor) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      hitRateLimit(db, key, timeWindow).then((result) => callback(null, result), callback)
    }

    read(key: string, callback: Callback): void {
      readRateLimit(db, key).then((result) => callback(null, result), callback)
    }

    child(): DatabaseRateLimitStore {
      return new DatabaseRateLimitStore()
    }
  }
}
