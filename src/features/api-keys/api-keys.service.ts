// API keys for server-to-server callers: a key acts as its owner, with the owner's tier, within
// its scopes (read: GET only). Only the SHA-256 of a key is stored; the key is shown once.
import { randomBytes } from 'node:crypto'

import type { Unit } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser,DomainError } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { UserService } from '../users/index.js'
import type { ApiKey, ApiKeyGrant, ApiKeyScope } from './api-key.js'
import { grantAllows, parseScopes, toApiKey } from './api-key.js'
import type { ApiKeysRepository } from './api-keys.repository.js'

export const API_KEY_NOT_FOUND = 'API key not found'
const apiKeyNotFound = () => new DomainError('not_found', API_KEY_NOT_FOUND, { code: 'api_key_not_found' })
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

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly users: UserService,
  ) {}

  /** Whether a key's scopes allow a request of this method (every route, public ones included, asks). */
  allows(grant: ApiKeyGrant, method: string): boolean {
    return grantAllows(grant, method)
  }

  /**
   * A deleted user's keys end with the deletion, in its transaction: restoring the user does not
   * bring them back (like their sessions).
   */
  async revokeAllOfDeleted(unit: Unit, userId: number): Promise<void> {
    await this.keys.in(unit).revokeApiKeysOf(userId)
  }

  /** Creates a key for the actor; the answer holds the only copy of the secret. */
  async create(actor: Actor, input: NewApiKey): Promise<ApiKey & { key: string }> {
    const prefix = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)
    const key = `ups_${prefix}_${randomBytes(32).toString('base64url')}`
    const scopes = [...new Set<ApiKeyScope>(['read', ...input.scopes])]
    const expiresAt = input.expiresInDays === undefined ? null : new Date(Date.now() + input.expiresInDays * 86_400_000).toISOString()
    const row = await this.keys.insertApiKey({ user_id: actor.id, name: input.name, prefix, key_hash: hashedKey(key), scopes: scopes.join(','), expires_at: expiresAt })
    return { ...toApiKey(row), key }
  }

  async list(actor: Actor): Promise<ApiKey[]> {
    return (await this.keys.listLiveApiKeys(actor.id)).map(toApiKey)
  }

  async revoke(actor: Actor, id: number): Promise<void> {
    if (!(await this.keys.revokeApiKey(actor.id, id))) throw apiKeyNotFound()
  }

  /** Any user's live keys (superusers; 404 when there is no such user, deleted or not). */
  async listOf(actor: Actor, userId: number): Promise<ApiKey[]> {
    await this.users.getManaged(actor, userId)
    return (await this.keys.listLiveApiKeys(userId)).map(toApiKey)
  }

  /** Revokes every live key of a user (a password reset, or a password change that asks for it); how many. */
  revokeAllOf(userId: number): Promise<number> {
    return this.keys.revokeApiKeysOf(userId)
  }

  /** How many live keys a user holds. */
  async countLiveOf(userId: number): Promise<number> {
    return (await this.keys.listLiveApiKeys(userId)).length
  }

  /** Revokes any user's key (superusers). */
  async revokeOf(actor: Actor, userId: number, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await this.keys.revokeApiKey(userId, id))) throw apiKeyNotFound()
  }

  /** What a presented key grants, or undefined for an unknown, revoked or expired key (or an owner who is gone). */
  async authenticate(key: string): Promise<ApiKeyGrant | undefined> {
    if (!KEY_PATTERN.test(key)) return undefined
    const row = await this.keys.findUsableApiKey(hashedKey(key))
    if (!row) return undefined
    const now = Date.now()
    if (now - (this.touchedAt.get(row.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.touchedAt.set(row.id, now)
      await this.keys.touchApiKey(row.id)
    }
    return { keyId: row.id, userId: row.user_id, scopes: parseScopes(row.scopes) }
  }
}
