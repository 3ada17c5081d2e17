// The mail outbox: durable rows that the dispatcher claims, sends and settles. Claiming is one
// statement: FOR UPDATE SKIP LOCKED on PostgreSQL, the single writer on SQLite, so two
// processes never claim one message.
import { randomUUID } from 'node:crypto'

import { isPostgres } from '../../db/dialect.js'
import { nextDueAt } from '../../db/outbox-due.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { MailMessage } from './mail.js'
import type { OutboxListRow } from './outbox.table.js'

export interface OutboxRow {
  id: string
  recipient: string
  subject: string
  text_body: string
  html_body: string
  attempts: number
}

export async function insertOutboxMessage(db: Executor, message: MailMessage): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({
      id: randomUUID(),
      recipient: message.to,
      subject: message.subject,
      text_body: message.text,
      html_body: message.html,
      status: 'pending',
      next_attempt_at: Date.now(),
      created_at: nowIso(),
    })
    .execute()
}

/** Claims up to `limit` due messages for `worker` until `leaseUntil` (epoch ms). */
export function claimDueMessages(db: Executor, worker: string, now: number, leaseUntil: number, limit: number): Promise<OutboxRow[]> {
  return db
    .updateTable('mail_outbox')
    .set({ claimed_by: worker, claimed_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((inner) => inner.or([inner('claimed_until', 'is', null), inner('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked()),
    )
    .returning(['id', 'recipient', 'subject', 'text_body', 'html_body', 'attempts'])
    .execute()
}

/** Epoch ms when a message is next due (its retry, or the end of a claim another worker holds); undefined when none is pending. */
export function nextMessageDueAt(db: Executor): Promise<number | undefined> {
  return nextDueAt(db, 'mail_outbox')
}

export async function markSent(db: Executor, id: string, worker: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ status: 'sent', sent_at: nowIso(), attempts: eb('attempts', '+', 1), claimed_by: null, claimed_until: null }))
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

/** A failed attempt: try again at `nextAttemptAt`, or give up (`failed`) after the last one. */
export async function markAttemptFailed(db: Executor, id: string, worker: string, error: string, nextAttemptAt: number | null): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: nextAttemptAt === null ? 'failed' : 'pending',
      next_attempt_at: nextAttemptAt ?? Date.now(),
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 500),
      claimed_by: null,
      claimed_until: null,
    }))
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .execute()
}

/** Pending messages and the age of the oldest, for /ready-style checks and metrics. */
export async function pendingStats(db: Executor): Promise<{ pending: number; oldestCreatedAt: string | null }> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow()
  const oldest = row.oldest as Date | string | null
  return { pending: Number(row.pending), oldestCreatedAt: oldest === null ? null : typeof oldest === 'string' ? oldest : oldest.toISOString() }
}

/** Sent messages are kept a while for support questions, then dropped. */
export async function deleteSentBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('mail_outbox').where('status', '=', 'sent').where('sent_at', '<', before).execute()
}

/** The outbox, newest first (the development mail page). */
export function listOutboxMessages(db: Executor, offset: number, limit: number): Promise<OutboxListRow[]> {
  return db
    .selectFrom('mail_outbox')
    .select(['id', 'recipient', 'subject', 'text_body', 'status', 'attempts', 'last_error', 'created_at', 'sent_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .offset(offset)
    .limit(limit)
    .execute()
}

export async function countOutboxMessages(db: Executor): Promise<number> {
  const row = await db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const outboxFunctions = { insertOutboxMessage, claimDueMessages, nextMessageDueAt, markSent, markAttemptFailed, pendingStats, deleteSentBefore, listOutboxMessages, countOutboxMessages }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const outboxReadTargets: ReadTargets<typeof outboxFunctions> = {
  insertOutboxMessage: 'write',
  claimDueMessages: 'write',
  nextMessageDueAt: 'primary',
  markSent: 'write',
  markAttemptFailed: 'write',
  pendingStats: 'primary',
  deleteSentBefore: 'write',
  listOutboxMessages: 'primary',
  countOutboxMessages: 'primary',
}

export type OutboxRepository = Repository<typeof outboxFunctions>
