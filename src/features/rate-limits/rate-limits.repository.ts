// Rate-limit rules, and fixed-window counters in the database (when no Redis is configured), so
// every server process counts the same requests.
import type { Selectable } from 'kysely'
import { sql } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { RateLimitRulesTable } from './rate-limits.table.js'

export type RateLimitRuleRow = Selectable<RateLimitRulesTable>

const RULE_COLUMNS = ['id', 'tier_id', 'route', 'limit_count', 'period_seconds', 'created_at', 'updated_at'] as const

export function listAllRules(db: Executor): Promise<RateLimitRuleRow[]> {
  return db.selectFrom('rate_limit_rules').select(RULE_COLUMNS).orderBy('id').execute()
}

export function listRulesOfTier(db: Executor, tierId: number | null): Promise<RateLimitRuleRow[]> {
  return db
    .selectFrom('rate_limit_rules')
    .select(RULE_COLUMNS)
    .where('tier_id', tierId === null ? 'is' : '=', tierId)
    .orderBy('id')
    .execute()
}

export function insertRule(db: Executor, rule: { tier_id: number | null; route: string; limit_count: number; period_seconds: number }): Promise<RateLimitRuleRow> {
  const now = nowIso()
  return db.insertInto('rate_limit_rules').values({ ...rule, created_at: now, updated_at: now }).returning(RULE_COLUMNS).executeTakeFirstOrThrow()
}

export function updateRule(
  db: Executor,
  tierId: number | null,
  id: number,
  changes: { route?: string; limit_count?: number; period_seconds?: number },
): Promise<RateLimitRuleRow | undefined> {
  return db
    .updateTable('rate_limit_rules')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .where('tier_id', tierId === null ? 'is' : '=', tierId)
    .returning(RULE_COLUMNS)
    .executeTakeFirst()
}

export async function deleteRule(db: Executor, tierId: number | null, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('rate_limit_rules')
    .where('id', '=', id)
    .where('tier_id', tierId === null ? 'is' : '=', tierId)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

export interface WindowCount {
  current: number
  /** Milliseconds until the window resets. */
  ttl: number
}

/** Counts `cost` hits for key and returns the window's count; a single upsert, so concurrent hits all count. */
export async function hitRateLimit(db: Executor, key: string, windowMs: number, cost = 1): Promise<WindowCount> {
  const now = Date.now()
  const resetAt = now + windowMs
  const row = await db
    .insertInto('rate_limits')
    .values({ key, count: cost, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        count: sql`case when rate_limits.reset_at <= ${now} then ${cost} else rate_limits.count + ${cost} end`,
        reset_at: sql`case when rate_limits.reset_at <= ${now} then ${resetAt} else rate_limits.reset_at end`,
      }),
    )
    .returning(['count', 'reset_at'])
    .executeTakeFirstOrThrow()
  return { current: row.count, ttl: Number(row.reset_at) - now }
}

/** The key's count while its window lasts; 0 for none or an ended one. */
export async function peekRateLimit(db: Executor, key: string): Promise<number> {
  const row = await db.selectFrom('rate_limits').select('count').where('key', '=', key).where('reset_at', '>', Date.now()).executeTakeFirst()
  return Number(row?.count ?? 0)
}

/** Takes back `amount` hits from key's window while it lasts (an ended window keeps nothing to take back). */
export async function releaseRateLimit(db: Executor, key: string, amount: number): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set({ count: sql`case when count > ${amount} then count - ${amount} else 0 end` })
    .where('key', '=', key)
    .where('reset_at', '>', Date.now())
    .execute()
}

export async function deleteExpiredRateLimits(db: Executor): Promise<void> {
  await db.deleteFrom('rate_limits').where('reset_at', '<', Date.now()).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const rateLimitsFunctions = { listAllRules, listRulesOfTier, insertRule, updateRule, deleteRule, hitRateLimit, releaseRateLimit, peekRateLimit, deleteExpiredRateLimits }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const rateLimitsReadTargets: ReadTargets<typeof rateLimitsFunctions> = {
  listAllRules: 'primary',
  listRulesOfTier: 'primary',
  insertRule: 'write',
  updateRule: 'write',
  deleteRule: 'write',
  hitRateLimit: 'bookkeeping',
  releaseRateLimit: 'bookkeeping',
  peekRateLimit: 'primary',
  deleteExpiredRateLimits: 'write',
}

export type RateLimitsRepository = Repository<typeof rateLimitsFunctions>
