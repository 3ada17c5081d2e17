// Where revoked access-token ids live: the database by default, Redis when configured.
// Either way every server process sees a revocation at once.
import type { Redis } from 'ioredis'

import { serviceUnavailable } from '../../shared/errors.js'
import type { AuthRepository } from './auth.repository.js'

export interface RevocationStore {
  revoke(jti: string, expiresAt: Date): Promise<void>
  isRevoked(jti: string): Promise<boolean>
  /** In the database: the query that loads the caller checks it too, in the same statement. */
  readonly inDatabase: boolean
}

export class DatabaseRevocationStore implements RevocationStore {
  readonly inDatabase = true

  constructor(private readonly repository: AuthRepository) {}

  revoke(jti: string, expiresAt: Date): Promise<void> {
    return this.repository.insertRevokedToken(jti, expiresAt)
  }

  isRevoked(jti: string): Promise<boolean> {
    return this.repository.isTokenRevoked(jti)
  }
}

export class RedisRevocationStore implements RevocationStore {
  readonly inDatabase = false

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'revoked-jti:',
  ) {}

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    const ttl = expiresAt.getTime() - Date.now()
    if (ttl <= 0) return
    try {
      await this.redis.set(this.prefix + jti, '1', 'PX', ttl)
    } catch {
      throw serviceUnavailable()
    }
  }

  async isRevoked(jti: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.prefix + jti)) === 1
    } catch {
      // Fail closed: a token we cannot check is not honoured.
      throw serviceUnavailable()
    }
  }
}
