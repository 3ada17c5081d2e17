// Fixed-window counters in the database, so every server process counts the same attempts.
import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

export interface WindowCount {
  current: number
  /** Milliseconds until the window resets. */
  ttl: number
}

/** Counts one hit for key and returns the window's count; a single upsert, so concurrent hits all count. */
export async function hitRateLimit(db: Executor, key: string, windowMs: number): Promise<WindowCount> {
  const now = Date.now()
  const resetAt = now + windowMs
  const row = await db
    .insertInto('rate_limits')
    .values({ key, count: 1, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        count: sql`case when rate_limits.reset_at <= ${now} then 1 else rate_limits.count + 1 end`,
        reset_at: sql`case when rate_limits.reset_at <= ${now} then ${resetAt} else rate_limits.reset_at end`,
      }),
    )
    .returning(['count', 'reset_at'])
    .executeTakeFirstOrThrow()
  return { current: row.count, ttl: Number(row.reset_at) - now }
}

export async function readRateLimit(db: Executor, key: string): Promise<WindowCount> {
  const now = Date.now()
  const row = await db.selectFrom('rate_limits').select(['count', 'reset_at']).where('key', '=', key).executeTakeFirst()
  if (row === undefined || Number(row.reset_at) <= now) return { current: 0, ttl: 0 }
  return { current: row.count, ttl: Number(row.reset_at) - now }
}

export async function deleteExpiredRateLimits(db: Executor): Promise<void> {
  await db.deleteFrom('rate_limits').where('reset_at', '<', Date.now()).execute()
}
