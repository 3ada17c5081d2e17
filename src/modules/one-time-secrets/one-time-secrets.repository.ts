// SQL of the one-time secret store: every spend is one conditional UPDATE, so of two concurrent
// spends (in any process) exactly one gets the row.
import type { Insertable } from 'kysely'

import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { OneTimeSecretsTable } from './one-time-secrets.table.js'

export interface SpentSecretRow {
  user_id: number | null
  data: string | null
}

export async function insertSecret(db: Executor, row: Insertable<OneTimeSecretsTable>): Promise<void> {
  await db.insertInto('one_time_secrets').values(row).execute()
}

/** Spends every live secret of `purpose` for the user (a newer one replaces them). */
export async function retireSecrets(db: Executor, purpose: string, userId: number): Promise<void> {
  await db.updateTable('one_time_secrets').set({ used_at: nowIso() }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute()
}

/** Spends a live secret of `purpose` by its hash; undefined when unknown, used, expired or out of attempts. */
export function spendSecret(db: Executor, purpose: string, secretHash: string, maxAttempts: number): Promise<SpentSecretRow | undefined> {
  const now = nowIso()
  return db
    .updateTable('one_time_secrets')
    .set({ used_at: now })
    .where('secret_hash', '=', secretHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['user_id', 'data'])
    .executeTakeFirst()
}

/**
 * Takes one attempt from each of the user's live coded secrets of `purpose`, and returns them: the
 * attempt is taken before a code is compared, so concurrent guesses never try more than the limit.
 * Runs the same UPDATE for any user id, one with no rows included.
 */
export function takeCodeAttempt(db: Executor, purpose: string, userId: number, maxAttempts: number): Promise<{ secret_hash: string; code_hash: string | null }[]> {
  const now = nowIso()
  return db
    .updateTable('one_time_secrets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<=', maxAttempts - 1)
    .returning(['secret_hash', 'code_hash'])
    .execute()
}

/** Spends a secret whose code was right (its attempt already taken); undefined when a concurrent try spent it first. */
export function spendTakenSecret(db: Executor, secretHash: string): Promise<SpentSecretRow | undefined> {
  return db
    .updateTable('one_time_secrets')
    .set({ used_at: nowIso() })
    .where('secret_hash', '=', secretHash)
    .where('used_at', 'is', null)
    .returning(['user_id', 'data'])
    .executeTakeFirst()
}

export async function deleteExpiredSecrets(db: Executor): Promise<void> {
  await db.deleteFrom('one_time_secrets').where('expires_at', '<', nowIso()).execute()
}

export const oneTimeSecretsFunctions = { insertSecret, retireSecrets, spendSecret, takeCodeAttempt, spendTakenSecret, deleteExpiredSecrets }
export type OneTimeSecretsRepository = Repository<typeof oneTimeSecretsFunctions>
