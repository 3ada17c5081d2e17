// API keys for server-to-server callers: a key acts as its owner, with the owner's tier, within
// its scopes (read: GET only). Only the SHA-256 of a key is stored; the key is shown once.
import { randomBytes } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, assertSuperuser } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import { parseScopes, toApiKey } from './api-key.js'
import type { ApiKey, ApiKeyGrant, ApiKeyScope } from './api-key.js'
import * as keys from './api-keys.repository.js'

export const API_KEY_NOT_FOUND = 'API key not found'
/** Keys look like ups_<prefix>_<secret>; the prefix is listed so owners can tell keys apart. */
const KEY_PATTERN = /^ups_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/
/** last_used_at moves at most this often per key: a write per request would cost more than it tells. */
const TOUCH_INTERVAL_MS = 60_000

export interface NewApiKey {
  name: string
  scopes: ApiKeyScope[]
  expiresInDays?: number
}

export class ApiKeyService {
  private readonly touchedAt = new Map<number, number>()

  constructor(private readonly db: Executor) {}

  /** Creates a key for the actor; the answer holds the only copy of the secret. */
  async create(actor: Actor, input: NewApiKey): Promise<ApiKey & { key: string }> {
    const prefix = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)
    const key = `ups_${prefix}_${randomBytes(32).toString('base64url')}`
    const scopes = [...new Set<ApiKeyScope>(['read', ...input.scopes])]
    const expiresAt = input.expiresInDays === undefined ? null : new Date(Date.now() + input.expiresInDays * 86_400_000).toISOString()
    const row = await keys.insertApiKey(this.db, { user_id: actor.id, name: input.name, prefix, key_hash: hashedKey(key), scopes: scopes.join(','), expires_at: expiresAt })
    return { ...toApiKey(row), key }
  }

  async list(actor: Actor): Promise<ApiKey[]> {
    return (await keys.listLiveApiKeys(this.db, actor.id)).map(toApiKey)
  }

  async revoke(actor: Actor, id: number): Promise<void> {
    if (!(await keys.revokeApiKey(this.db, actor.id, id))) throw new DomainError('not_found', API_KEY_NOT_FOUND)
  }

  /** Any user's live keys (superusers). */
  async listOf(actor: Actor, userId: number): Promise<ApiKey[]> {
    assertSuperuser(actor)
    return (await keys.listLiveApiKeys(this.db, userId)).map(toApiKey)
  }

  /** Revokes any user's key (superusers). */
  async revokeOf(actor: Actor, userId: number, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await keys.revokeApiKey(this.db, userId, id))) throw new DomainError('not_found', API_KEY_NOT_FOUND)
  }

  /** What a presented key grants, or undefined for an unknown, revoked or expired key (or an owner who is gone). */
  async authenticate(key: string): Promise<ApiKeyGrant | undefined> {
    if (!KEY_PATTERN.test(key)) return undefined
    const row = await keys.findUsableApiKey(this.db, hashedKey(key))
    if (!row) return undefined
    const now = Date.now()
    if (now - (this.touchedAt.get(row.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.touchedAt.set(row.id, now)
      await keys.touchApiKey(this.db, row.id)
    }
    return { keyId: row.id, userId: row.user_id, scopes: parseScopes(row.scopes) }
  }
}
