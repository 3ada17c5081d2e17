// SQL of the one-time secret store: every spend, and every attempt at a code, is one conditional
// UPDATE, so of two concurrent requests (in any process) exactly one gets the row.
import type { ExpressionBuilder, Insertable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Database, Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { OneTimeSecretsTable } from './one-time-secrets.table.js'

export interface SecretRow {
  user_id: number | null
  data: string | null
}

export interface CodedSecretRow {
  secret_hash: string
  code_hash: string | null
}

/** Unspent, unexpired and with attempts left: what every spend and attempt asks of a row. */
const live = (eb: ExpressionBuilder<Database, 'one_time_secrets'>, purpose: string, maxAttempts: number, now: string) =>
  eb.and([eb('purpose', '=', purpose), eb('used_at', 'is', null), eb('expires_at', '>', now), eb('attempts', '<', maxAttempts)])

export async function insertSecret(db: Executor, row: Insertable<OneTimeSecretsTable>): Promise<void> {
  await db.insertInto('one_time_secrets').values(row).execute()
}

/** Spends every live secret of `purpose` for the user (a newer one replaces them, or the ways they guarded are gone). */
export async function retireSecrets(db: Executor, purpose: string, userId: number): Promise<void> {
  await db.updateTable('one_time_secrets').set({ used_at: nowIso() }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute()
}

/**
 * Spends a live secret of `purpose` by its hash, when its binding (if it has one) is among those
 * presented; undefined when unknown, used, expired, out of attempts or presented without its
 * binding (which leaves it unspent).
 */
export function spendSecret(db: Executor, purpose: string, secretHash: string, maxAttempts: number, bindings: string[]): Promise<SecretRow | undefined> {
  const now = nowIso()
  return db
    .updateTable('one_time_secrets')
    .set({ used_at: now })
    .where('secret_hash', '=', secretHash)
    .where((eb) => live(eb, purpose, maxAttempts, now))
    .where((eb) => (bindings.length === 0 ? eb('binding', 'is', null) : eb.or([eb('binding', 'is', null), eb('binding', 'in', bindings)])))
    .returning(['user_id', 'data'])
    .executeTakeFirst()
}

/** A live secret of `purpose` with attempts left, without spending it or taking an attempt. */
export function findLiveSecret(db: Executor, purpose: string, secretHash: string, maxAttempts: number): Promise<SecretRow | undefined> {
  return db
    .selectFrom('one_time_secrets')
    .select(['user_id', 'data'])
    .where('secret_hash', '=', secretHash)
    .where((eb) => live(eb, purpose, maxAttempts, nowIso()))
    .executeTakeFirst()
}

/**
 * Takes one attempt from a live secret of `purpose` with attempts left, and returns it: the
 * attempt is taken before the proof is checked, so concurrent guesses never try more than the limit.
 */
export function takeAttempt(db: Executor, purpose: string, secretHash: string, maxAttempts: number): Promise<SecretRow | undefined> {
  const now = nowIso()
  return db
    .updateTable('one_time_secrets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('secret_hash', '=', secretHash)
    .where((eb) => live(eb, purpose, maxAttempts, now))
    .returning(['user_id', 'data'])
    .executeTakeFirst()
}

/**
 * Takes one attempt from each of the user's live coded secrets of `purpose`, and returns them, to
 * compare the code with. Runs the same UPDATE for any user id, one with no rows included.
 */
export function takeCodeAttempts(db: Executor, purpose: string, userId: number, maxAttempts: number): Promise<CodedSecretRow[]> {
  const now = nowIso()
  return db
    .updateTable('one_time_secrets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('user_id', '=', userId)
    .where((eb) => live(eb, purpose, maxAttempts, now))
    .returning(['secret_hash', 'code_hash'])
    .execute()
}

/** Spends a secret whose attempt was taken and whose proof was right; undefined when a concurrent request spent it first. */
export function spendAttempted(db: Executor, purpose: string, secretHash: string): Promise<SecretRow | undefined> {
  return db
    .updateTable('one_time_secrets')
    .set({ used_at: nowIso() })
    .where('secret_hash', '=', secretHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .returning(['user_id', 'data'])
    .executeTakeFirst()
}

export async function deleteExpiredSecrets(db: Executor): Promise<void> {
  await db.deleteFrom('one_time_secrets').where('expires_at', '<', nowIso()).execute()
}

export const oneTimeSecretsFunctions = { insertSecret, retireSecrets, spendSecret, findLiveSecret, takeAttempt, takeCodeAttempts, spendAttempted, deleteExpiredSecrets }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const oneTimeSecretsReadTargets: ReadTargets<typeof oneTimeSecretsFunctions> = {
  insertSecret: 'write',
  retireSecrets: 'write',
  spendSecret: 'write',
  findLiveSecret: 'primary',
  takeAttempt: 'write',
  takeCodeAttempts: 'write',
  spendAttempted: 'write',
  deleteExpiredSecrets: 'write',
}

export type OneTimeSecretsRepository = Repository<typeof oneTimeSecretsFunctions>
