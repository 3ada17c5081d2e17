// The only place API-key SQL lives. Keys are found by the SHA-256 of the presented secret.
import type { Selectable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { ApiKeysTable } from './api-keys.table.js'

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'key_hash' | 'revoked_at' | 'user_id'>

const COLUMNS = ['id', 'name', 'prefix', 'scopes', 'created_at', 'expires_at', 'last_used_at'] as const

export function insertApiKey(
  db: Executor,
  key: { user_id: number; name: string; prefix: string; key_hash: string; scopes: string; expires_at: string | null },
): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values({ ...key, created_at: nowIso() }).returning(COLUMNS).executeTakeFirstOrThrow()
}

/** The owner's keys that still work, newest first. */
export function listLiveApiKeys(db: Executor, userId: number): Promise<ApiKeyRow[]> {
  const now = nowIso()
  return db
    .selectFrom('api_keys')
    .select(COLUMNS)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc')
    .execute()
}

export async function revokeApiKey(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Revokes every live key of a user; how many were live. */
export async function revokeApiKeysOf(db: Executor, userId: number): Promise<number> {
  const result = await db.updateTable('api_keys').set({ revoked_at: nowIso() }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** A live key and its owner, if the owner is live and active (a deleted or deactivated owner's keys stop working). */
export function findUsableApiKey(db: Executor, keyHash: string): Promise<{ id: number; user_id: number; scopes: string } | undefined> {
  const now = nowIso()
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id', 'api_keys.user_id', 'api_keys.scopes'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
    .where('users.is_deleted', '=', 0)
    .where('users.is_active', '=', 1)
    .executeTakeFirst()
}

export async function touchApiKey(db: Executor, id: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: nowIso() }).where('id', '=', id).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const apiKeysFunctions = { insertApiKey, listLiveApiKeys, revokeApiKey, revokeApiKeysOf, findUsableApiKey, touchApiKey }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const apiKeysReadTargets: ReadTargets<typeof apiKeysFunctions> = {
  insertApiKey: 'write',
  listLiveApiKeys: 'primary',
  revokeApiKey: 'write',
  revokeApiKeysOf: 'write',
  findUsableApiKey: 'primary',
  touchApiKey: 'bookkeeping',
}

export type ApiKeysRepository = Repository<typeof apiKeysFunctions>
