// Builds the services once per process; routes of every API version share them.
import path from 'node:path'
import type { Redis } from 'ioredis'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { AuthService } from './modules/auth/auth.service.js'
import { PasswordHasher } from './modules/auth/passwords.js'
import { DatabaseRevocationStore, RedisRevocationStore } from './modules/auth/revocation-store.js'
import { TokenService } from './modules/auth/tokens.js'
import { DatabaseAvatarStorage, DiskAvatarStorage } from './modules/avatars/avatar-storage.js'
import { AvatarService } from './modules/avatars/avatars.service.js'
import { PostService } from './modules/posts/posts.service.js'
import { pingDatabase } from './db/health.js'
import { deleteExpiredRateLimits } from './modules/rate-limits/rate-limits.repository.js'
import { TierService } from './modules/tiers/tiers.service.js'
import { UserService } from './modules/users/users.service.js'

export interface Services {
  users: UserService
  auth: AuthService
  avatars: AvatarService
  posts: PostService
  tiers: TierService
  /** Deletes expired tokens, revocations and rate-limit windows. */
  pruneExpiredState(): Promise<void>
  /** Resolves when every backing store (database, and Redis when configured) answers. */
  checkReady(): Promise<void>
}

export interface ServiceDependencies {
  config: Config
  secretKey: string
  database: DatabaseHandle
  redis: Redis | undefined
}

export function createServices({ config, secretKey, database, redis }: ServiceDependencies): Services {
  const { db } = database
  const passwords = new PasswordHasher()
  const tokens = new TokenService(secretKey, {
    accessSeconds: config.accessTokenMinutes * 60,
    refreshSeconds: config.refreshTokenDays * 24 * 60 * 60,
  })
  const revocations = redis ? new RedisRevocationStore(redis) : new DatabaseRevocationStore(db)
  const storage =
    config.avatarStorage === 'database'
      ? new DatabaseAvatarStorage(db)
      : new DiskAvatarStorage(path.join(config.dataDir, 'avatars'))
  const avatars = new AvatarService(storage)
  const tiers = new TierService(db)
  const posts = new PostService(db)
  const users = new UserService(db, passwords, avatars, tiers, posts)
  const auth = new AuthService(db, users, passwords, tokens, revocations)
  return {
    users,
    tiers,
    auth,
    avatars,
    posts,
    async pruneExpiredState() {
      await auth.pruneExpiredState()
      await deleteExpiredRateLimits(db)
    },
    async checkReady() {
      await pingDatabase(db)
      if (redis) await redis.ping()
    },
  }
}
