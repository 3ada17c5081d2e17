// Single-use account tokens (email verification, password reset), stored by their SHA-256 only.
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export type TokenPurpose = 'verify_email' | 'reset_password' | 'undo_email_change'

export async function insertUserToken(
  db: Executor,
  token: { hash: string; userId: number; purpose: TokenPurpose; email: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('user_tokens')
    .values({
      token_hash: token.hash,
      user_id: token.userId,
      purpose: token.purpose,
      email: token.email,
      expires_at: token.expiresAt.toISOString(),
      created_at: nowIso(),
    })
    .execute()
}

/**
 * Uses a token, once: the conditional UPDATE lets exactly one of two concurrent requests win.
 * Undefined for an unknown, used, expired or other-purpose token.
 */
export function consumeUserToken(db: Executor, hash: string, purpose: TokenPurpose): Promise<{ user_id: number; email: string } | undefined> {
  const now = nowIso()
  return db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'email'])
    .executeTakeFirst()
}

/** A token that could still be used, without using it. */
export function findUsableUserToken(db: Executor, hash: string, purpose: TokenPurpose): Promise<{ user_id: number; email: string } | undefined> {
  return db
    .selectFrom('user_tokens')
    .select(['user_id', 'email'])
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst()
}

/** A newer link replaces older unused ones of the same purpose. */
export async function retireUserTokens(db: Executor, userId: number, purpose: TokenPurpose): Promise<void> {
  await db.updateTable('user_tokens').set({ used_at: nowIso() }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute()
}

export async function deleteExpiredUserTokens(db: Executor): Promise<void> {
  await db.deleteFrom('user_tokens').where('expires_at', '<', nowIso()).execute()
}

/** This module's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const userTokensFunctions = { insertUserToken, consumeUserToken, findUsableUserToken, retireUserTokens, deleteExpiredUserTokens }
export type UserTokensRepository = Repository<typeof userTokensFunctions>
