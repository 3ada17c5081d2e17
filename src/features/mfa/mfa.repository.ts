// Second factors' rows (the mfa_token between the factors is a one-time secret). Every "use once" step is a conditional UPDATE, so of two concurrent
// requests (in one process or several) exactly one wins.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export function findTotpFactor(db: Executor, userId: number) {
  return db.selectFrom('totp_factors').select(['secret', 'confirmed_at', 'last_used_step']).where('user_id', '=', userId).executeTakeFirst()
}

/** Sets a pending secret, replacing a pending one; false when the user has a confirmed one (nothing is changed). */
export async function setPendingTotpFactor(db: Executor, userId: number, secret: string): Promise<boolean> {
  const now = nowIso()
  const result = await db
    .insertInto('totp_factors')
    .values({ user_id: userId, secret, created_at: now })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ secret, created_at: now, last_used_step: 0 }).where('totp_factors.confirmed_at', 'is', null))
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * Spends `step` of the user's secret: only a step later than the last one used is taken, so a
 * code is accepted once. `pending` confirms a pending secret; otherwise the secret must be confirmed.
 */
export async function spendTotpStep(db: Executor, userId: number, step: number, pending: boolean): Promise<boolean> {
  const spent = await db
    .updateTable('totp_factors')
    .set(pending ? { last_used_step: step, confirmed_at: nowIso() } : { last_used_step: step })
    .where('user_id', '=', userId)
    .where('confirmed_at', pending ? 'is' : 'is not', null)
    .where('last_used_step', '<', step)
    .executeTakeFirst()
  return Number(spent.numUpdatedRows) > 0
}

/** Seals the secret again (under the current key, after a rotation). */
export async function resealTotpFactor(db: Executor, userId: number, secret: string): Promise<void> {
  await db.updateTable('totp_factors').set({ secret }).where('user_id', '=', userId).execute()
}

/** Removes the user's TOTP factor and recovery codes; true when there was a factor. */
export async function deleteSecondFactors(db: Executor, userId: number): Promise<boolean> {
  const deleted = await db.deleteFrom('totp_factors').where('user_id', '=', userId).executeTakeFirst()
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  return Number(deleted.numDeletedRows) > 0
}

/** The user's recovery codes become exactly these (the old ones die). */
export async function replaceRecoveryCodes(db: Executor, userId: number, codeHashes: string[]): Promise<void> {
  const now = nowIso()
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  await db.insertInto('recovery_codes').values(codeHashes.map((code_hash) => ({ code_hash, user_id: userId, created_at: now }))).execute()
}

export async function spendRecoveryCode(db: Executor, userId: number, codeHash: string): Promise<boolean> {
  const spent = await db
    .updateTable('recovery_codes')
    .set({ used_at: nowIso() })
    .where('code_hash', '=', codeHash)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(spent.numUpdatedRows) > 0
}

export async function countUnusedRecoveryCodes(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll().as('count')).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirst()
  return Number(row?.count ?? 0)
}

/** This feature's data access for its service (src/db/repository.ts). */
export const mfaFunctions = {
  findTotpFactor,
  setPendingTotpFactor,
  spendTotpStep,
  resealTotpFactor,
  deleteSecondFactors,
  replaceRecoveryCodes,
  spendRecoveryCode,
  countUnusedRecoveryCodes,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const mfaReadTargets: ReadTargets<typeof mfaFunctions> = {
  findTotpFactor: 'primary',
  setPendingTotpFactor: 'write',
  spendTotpStep: 'write',
  resealTotpFactor: 'write',
  deleteSecondFactors: 'write',
  replaceRecoveryCodes: 'write',
  spendRecoveryCode: 'write',
  countUnusedRecoveryCodes: 'primary',
}

export type MfaRepository = Repository<typeof mfaFunctions>
