import rateLimit from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { Executor } from '../db/schema.js'
import { databaseRateLimitStore } from '../modules/rate-limits/database-store.js'

export interface RateLimitOptions {
  db: Executor
  redis: Redis | undefined
}

// Limits are applied where needed (login) through app.createRateLimit(). Counters live in
// Redis when configured, otherwise in the database, so they hold across processes.
export default fp<RateLimitOptions>(
  async (app, { db, redis }) => {
    await app.register(rateLimit, {
      global: false,
      ...(redis ? { redis, nameSpace: 'rate-limit:' } : { store: databaseRateLimitStore(db) }),
    })
  },
  { name: 'rate-limit' },
)
