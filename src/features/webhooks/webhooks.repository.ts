// The webhooks feature's SQL. Deliveries are claimed in one statement (FOR UPDATE SKIP LOCKED on
// PostgreSQL, the single writer on SQLite), so two processes never send one delivery at once;
// a delivery waits while an older one to the same endpoint about the same resource is pending,
// which keeps each resource's events in order at each endpoint.
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { nextDueAt } from '../../db/outbox-due.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { DeliveryRow, WebhookRow } from './webhooks.table.js'

export interface NewWebhookRow {
  url: string
  description: string
  events: string
  secret: string
}

export interface WebhookRowChanges {
  url?: string
  description?: string
  events?: string
  enabled?: 0 | 1
  disabled_reason?: string | null
  failing_since?: number | null
  secret?: string
  previous_secret?: string | null
  previous_secret_until?: number | null
}

export interface NewDeliveryRow {
  webhook_id: number
  message_id: string
  event_type: string
  subject: string
  payload: string
}

export async function insertWebhook(db: Executor, row: NewWebhookRow): Promise<WebhookRow> {
  const now = nowIso()
  return db.insertInto('webhooks').values({ ...row, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow()
}

export function findWebhook(db: Executor, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listWebhooks(db: Executor, offset: number, limit: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().orderBy('id').offset(offset).limit(limit).execute()
}

export async function countWebhooks(db: Executor): Promise<number> {
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}

export function listEnabledWebhooks(db: Executor): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('enabled', '=', 1).execute()
}

export function updateWebhook(db: Executor, id: number, changes: WebhookRowChanges): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhooks')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteWebhook(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** The endpoint had a failed attempt: failing since now, unless it already was. */
export async function markWebhookFailing(db: Executor, id: number, now: number): Promise<WebhookRow | undefined> {
  await db.updateTable('webhooks').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute()
  return findWebhook(db, id)
}

export async function markWebhookSucceeding(db: Executor, id: number): Promise<void> {
  await db.updateTable('webhooks').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute()
}

export async function insertDeliveries(db: Executor, rows: NewDeliveryRow[], now: number): Promise<DeliveryRow[]> {
  if (rows.length === 0) return []
  const createdAt = nowIso()
  return db
    .insertInto('webhook_deliveries')
    .values(rows.map((row) => ({ ...row, status: 'pending' as const, next_attempt_at: now, created_at: createdAt })))
    .returningAll()
    .execute()
}

/** Claims up to `limit` due deliveries of enabled endpoints for `worker` until `leaseUntil` (epoch ms). */
export function claimDueDeliveries(db: Executor, worker: string, now: number, leaseUntil: number, limit: number): Promise<DeliveryRow[]> {
  return db
    .updateTable('webhook_deliveries')
    .set({ claimed_by: worker, claimed_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries as due')
        .select('due.id')
        .where('due.status', '=', 'pending')
        .where('due.next_attempt_at', '<=', now)
        .where((inner) => inner.or([inner('due.claimed_until', 'is', null), inner('due.claimed_until', '<', now)]))
        .where('due.webhook_id', 'in', (hooks) => hooks.selectFrom('webhooks').select('webhooks.id').where('webhooks.enabled', '=', 1))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as older')
                .select('older.id')
                .whereRef('older.webhook_id', '=', 'due.webhook_id')
                .whereRef('older.subject', '=', 'due.subject')
                .where('older.status', '=', 'pending')
                .whereRef('older.id', '<', 'due.id'),
            ),
          ),
        )
        .orderBy('due.id')
        .limit(limit)
        .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked()),
    )
    .returningAll()
    .execute()
}

/** Epoch ms when a delivery is next due (its retry, or the end of a claim another worker holds); undefined when none is pending. */
export function nextDeliveryDueAt(db: Executor): Promise<number | undefined> {
  // A disabled endpoint's deliveries wait for it to be turned back on (which wakes the relay).
  return nextDueAt(db, 'webhook_deliveries', sql`webhook_id in (select id from webhooks where enabled = 1)`)
}

export interface AttemptOutcome {
  statusCode: number | null
  error: string | null
  /** pending with the next attempt's time, or settled. */
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: number
}

/** Records an attempt by the worker that claimed the delivery, and releases the claim. */
export async function recordAttempt(db: Executor, id: number, worker: string, outcome: AttemptOutcome): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      last_status_code: outcome.statusCode,
      last_error: outcome.error === null ? null : outcome.error.slice(0, 500),
      last_attempt_at: nowIso(),
      next_attempt_at: outcome.nextAttemptAt,
      claimed_by: null,
      claimed_until: null,
    }))
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

export function findDelivery(db: Executor, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()
}

/** An endpoint's deliveries, newest first. */
export function listDeliveries(db: Executor, webhookId: number, offset: number, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').offset(offset).limit(limit).execute()
}

export async function countDeliveries(db: Executor, webhookId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Settled deliveries are kept a while for the deliveries page, then dropped. */
export async function deleteSettledBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('created_at', '<', before).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const webhooksFunctions = {
  insertWebhook,
  findWebhook,
  listWebhooks,
  countWebhooks,
  listEnabledWebhooks,
  updateWebhook,
  deleteWebhook,
  markWebhookFailing,
  markWebhookSucceeding,
  insertDeliveries,
  claimDueDeliveries,
  nextDeliveryDueAt,
  recordAttempt,
  findDelivery,
  listDeliveries,
  countDeliveries,
  deleteSettledBefore,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const webhooksReadTargets: ReadTargets<typeof webhooksFunctions> = {
  insertWebhook: 'write',
  findWebhook: 'primary',
  listWebhooks: 'primary',
  countWebhooks: 'primary',
  listEnabledWebhooks: 'primary',
  updateWebhook: 'write',
  deleteWebhook: 'write',
  markWebhookFailing: 'write',
  markWebhookSucceeding: 'write',
  insertDeliveries: 'write',
  claimDueDeliveries: 'write',
  nextDeliveryDueAt: 'primary',
  recordAttempt: 'write',
  findDelivery: 'primary',
  listDeliveries: 'primary',
  countDeliveries: 'primary',
  deleteSettledBefore: 'write',
}

export type WebhooksRepository = Repository<typeof webhooksFunctions>
