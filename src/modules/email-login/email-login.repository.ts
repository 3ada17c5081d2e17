// Sign-in requests by email: written with the mail that carries them, spent once.
import type { Insertable } from 'kysely'

import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { EmailLoginRequestsTable } from './email-login.table.js'

export async function insertEmailLoginRequest(db: Executor, row: Insertable<EmailLoginRequestsTable>): Promise<void> {
  await db.insertInto('email_login_requests').values(row).execute()
}

/** A newer request replaces the user's older unused ones. */
export async function retireEmailLoginRequests(db: Executor, userId: number): Promise<void> {
  await db.updateTable('email_login_requests').set({ used_at: nowIso() }).where('user_id', '=', userId).where('used_at', 'is', null).execute()
}

/**
 * Spends a request by its link's token, once: the conditional UPDATE lets one of two concurrent
 * requests win. Undefined for an unknown, used, expired or exhausted one.
 */
export function spendEmailLoginByToken(db: Executor, tokenHash: string, maxAttempts: number): Promise<{ user_id: number; email: string } | undefined> {
  const now = nowIso()
  return db
    .updateTable('email_login_requests')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['user_id', 'email'])
    .executeTakeFirst()
}

/**
 * Counts one code attempt against each of the user's live requests that has attempts left, and
 * returns them: an attempt is taken before the code is compared, so concurrent guesses can never
 * try more codes than the limit.
 */
export function takeEmailLoginAttempt(db: Executor, userId: number, maxAttempts: number): Promise<{ token_hash: string; code_hash: string }[]> {
  const now = nowIso()
  return db
    .updateTable('email_login_requests')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['token_hash', 'code_hash'])
    .execute()
}

/** Spends a request whose code was right; undefined when a concurrent request spent it first. */
export function spendEmailLoginRequest(db: Executor, tokenHash: string): Promise<{ user_id: number; email: string } | undefined> {
  return db
    .updateTable('email_login_requests')
    .set({ used_at: nowIso() })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .returning(['user_id', 'email'])
    .executeTakeFirst()
}

export async function deleteExpiredEmailLoginRequests(db: Executor): Promise<void> {
  await db.deleteFrom('email_login_requests').where('expires_at', '<', nowIso()).execute()
}

/** This module's data access for its service (src/db/repository.ts). */
export const emailLoginFunctions = {
  insertEmailLoginRequest,
  retireEmailLoginRequests,
  spendEmailLoginByToken,
  takeEmailLoginAttempt,
  spendEmailLoginRequest,
  deleteExpiredEmailLoginRequests,
}
export type EmailLoginRepository = Repository<typeof emailLoginFunctions>
