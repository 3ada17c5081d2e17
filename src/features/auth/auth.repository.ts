// SQL for login sessions, their refresh-token families and revoked access tokens.
import { preparedQuery } from '../../db/fast-path/prepared.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export function revokedTokenQuery(db: Executor, jti: string) {
  return db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti)
}

// The hot queries, compiled once (src/db/fast-path). Each is its plain twin above;
// test/db/prepared.test.ts checks that both return the same rows.
export const preparedRevokedToken = preparedQuery(1, revokedTokenQuery, { singleRow: true })

export interface RefreshTokenRow {
  jti: string
  family_id: string
  user_id: number
}

export async function insertRefreshToken(
  db: Executor,
  token: { jti: string; familyId: string; userId: number; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({
      jti: token.jti,
      family_id: token.familyId,
      user_id: token.userId,
      expires_at: token.expiresAt.toISOString(),
      created_at: nowIso(),
    })
    .execute()
}

/**
 * Marks a refresh token used, once. Returns its row when this call consumed it, undefined when
 * it was already used, revoked, expired or never issued. The conditional UPDATE makes two
 * concurrent refreshes with one token see exactly one winner.
 */
export async function consumeRefreshToken(db: Executor, jti: string): Promise<RefreshTokenRow | undefined> {
  const now = nowIso()
  return db
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('jti', '=', jti)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['jti', 'family_id', 'user_id'])
    .executeTakeFirst()
}

export async function findRefreshToken(db: Executor, jti: string): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('refresh_tokens').select(['jti', 'family_id', 'user_id']).where('jti', '=', jti).executeTakeFirst()
}

export async function revokeRefreshFamily(db: Executor, familyId: string): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: nowIso() })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute()
}

export interface NewSession {
  id: string
  userId: number
  expiresAt: Date
  userAgent: string | null
  ip: string | null
  /** What the sign-in proved, when it counts as a proof (a password, a second factor, a passkey); else null. */
  proof: string | null
}

export async function insertSession(db: Executor, session: NewSession): Promise<void> {
  const now = nowIso()
  await db
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      created_at: now,
      last_used_at: now,
      expires_at: session.expiresAt.toISOString(),
      user_agent: session.userAgent,
      ip: session.ip,
      proven_at: session.proof === null ? null : now,
      proof: session.proof,
    })
    .execute()
}

/** When a live session last proved who it is, and how; undefined for a session that is not live. */
export function findSessionProof(db: Executor, id: string): Promise<{ proven_at: Date | string | null; proof: string | null } | undefined> {
  return db.selectFrom('sessions').select(['proven_at', 'proof']).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
}

/** The session proved who it is, now, by `proof`. */
export async function markSessionProven(db: Executor, id: string, proof: string): Promise<void> {
  await db.updateTable('sessions').set({ proven_at: nowIso(), proof }).where('id', '=', id).where('revoked_at', 'is', null).execute()
}

/** A refresh extends the session's life to the new refresh token's. */
export async function touchSession(db: Executor, id: string, expiresAt: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_used_at: nowIso(), expires_at: expiresAt.toISOString() }).where('id', '=', id).execute()
}

/** Ends a session: every access token carrying it stops working, and its refresh tokens too. */
export async function revokeSession(db: Executor, id: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: nowIso() }).where('id', '=', id).where('revoked_at', 'is', null).execute()
  await revokeRefreshFamily(db, id)
}

export interface SessionRow {
  id: string
  created_at: Date | string
  last_used_at: Date | string
  user_agent: string | null
  ip: string | null
}

/** A user's live sessions, newest first. */
export function listLiveSessions(db: Executor, userId: number): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_used_at', 'user_agent', 'ip'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute()
}

/** The ids of a user's live sessions, but `exceptId`. */
export async function liveSessionIds(db: Executor, userId: number, exceptId?: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sessions')
    .select('id')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .$if(exceptId !== undefined, (qb) => qb.where('id', '<>', exceptId ?? ''))
    .execute()
  return rows.map((row) => row.id)
}

export async function insertRevokedToken(db: Executor, jti: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto('revoked_tokens')
    .values({ jti, expires_at: expiresAt.toISOString() })
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute()
}

export async function isTokenRevoked(db: Executor, jti: string): Promise<boolean> {
  return (await preparedRevokedToken(db, jti)).length > 0
}

/** Drops state that can no longer matter: expired sessions and refresh tokens, revocations of expired tokens. */
export async function deleteExpiredAuthState(db: Executor): Promise<void> {
  const now = nowIso()
  await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).execute()
  await db.deleteFrom('sessions').where('expires_at', '<', now).execute()
  await db.deleteFrom('revoked_tokens').where('expires_at', '<', now).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const authFunctions = { insertRefreshToken, consumeRefreshToken, findRefreshToken, revokeRefreshFamily, insertSession, findSessionProof, markSessionProven, touchSession, revokeSession, listLiveSessions, liveSessionIds, insertRevokedToken, isTokenRevoked, deleteExpiredAuthState }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const authReadTargets: ReadTargets<typeof authFunctions> = {
  insertRefreshToken: 'write',
  consumeRefreshToken: 'write',
  findRefreshToken: 'primary',
  revokeRefreshFamily: 'write',
  insertSession: 'write',
  findSessionProof: 'primary',
  markSessionProven: 'write',
  touchSession: 'bookkeeping',
  revokeSession: 'write',
  listLiveSessions: 'primary',
  liveSessionIds: 'primary',
  insertRevokedToken: 'write',
  isTokenRevoked: 'primary',
  deleteExpiredAuthState: 'write',
}

export type AuthRepository = Repository<typeof authFunctions>
