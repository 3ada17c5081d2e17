// Builds the services once per process; routes of every API version share them.
import path from 'node:path'
import type { Redis } from 'ioredis'
import type { Config } from './config.js'
import type { Logger } from './logger.js'
import { Signals } from './shared/signals.js'
import { AccountService } from './modules/account/account.service.js'
import { MailService } from './modules/mail/mail.service.js'
import { createMailTransport } from './modules/mail/transports.js'
import { ApiKeyService } from './modules/api-keys/api-keys.service.js'
import { DatabaseCounterStore, RedisCounterStore } from './modules/rate-limits/counter-store.js'
import { RateLimitService } from './modules/rate-limits/rate-limits.service.js'
import { SecurityEventService } from './modules/security-events/security-events.service.js'
import type { DatabaseHandle } from './db/database.js'
import { AuthService } from './modules/auth/auth.service.js'
import { PasswordHasher } from './modules/auth/passwords.js'
import { DatabaseRevocationStore, RedisRevocationStore } from './modules/auth/revocation-store.js'
import { TokenService } from './modules/auth/tokens.js'
import { DatabaseAvatarStorage, DiskAvatarStorage } from './modules/avatars/avatar-storage.js'
import { AvatarService } from './modules/avatars/avatars.service.js'
import { PostService } from './modules/posts/posts.service.js'
import { pingDatabase } from './db/health.js'
import { OverviewService } from './modules/overview/overview.service.js'
import { TierService } from './modules/tiers/tiers.service.js'
import { compactSearchIndex } from './modules/users/search-index.js'
import { UserService } from './modules/users/users.service.js'

export interface Services {
  users: UserService
  auth: AuthService
  avatars: AvatarService
  posts: PostService
  tiers: TierService
  account: AccountService
  mail: MailService
  securityEvents: SecurityEventService
  apiKeys: ApiKeyService
  rateLimits: RateLimitService
  /** The admin console's overview (superusers). */
  overview: OverviewService
  /** What the services report for monitoring (src/plugins/metrics.ts listens). */
  signals: Signals
  /** Deletes expired tokens, sessions, revocations, rate-limit windows, old sent mail and old security events. */
  pruneExpiredState(): Promise<void>
  /** Merges SQLite's user search index back into one segment once it is in pieces (search-index.ts). */
  compactSearchIndex(signal?: AbortSignal): Promise<void>
  /** Resolves when every backing store (database, and Redis when configured) answers. */
  checkReady(): Promise<void>
}

export interface ServiceDependencies {
  config: Config
  secretKey: string
  database: DatabaseHandle
  redis: Redis | undefined
  logger: Logger
}

export function createServices({ config, secretKey, database, redis, logger }: ServiceDependencies): Services {
  const { db } = database
  const passwords = new PasswordHasher()
  const tokens = new TokenService(
    secretKey,
    { accessSeconds: config.accessTokenMinutes * 60, refreshSeconds: config.refreshTokenDays * 24 * 60 * 60 },
    config.secretKeyPrevious,
  )
  const revocations = redis ? new RedisRevocationStore(redis) : new DatabaseRevocationStore(db)
  const storage =
    config.avatarStorage === 'database'
      ? new DatabaseAvatarStorage(db)
      : new DiskAvatarStorage(path.join(config.dataDir, 'avatars'))
  const avatars = new AvatarService(storage)
  const securityEvents = new SecurityEventService(db, config.securityEventRetentionDays)
  const transport = createMailTransport({ kind: config.mail.transport, smtpUrl: config.mail.smtpUrl, from: config.mail.from, dataDir: config.dataDir, logger })
  const mail = new MailService(db, transport, logger, { templatesDir: config.mail.templatesDir, retryBaseMs: config.mail.retryBaseMs })
  const tiers = new TierService(db)
  const posts = new PostService(db, { requireVerifiedEmail: config.requireVerifiedEmail })
  const users = new UserService(db, passwords, avatars, tiers, posts, securityEvents)
  const apiKeys = new ApiKeyService(db)
  const signals = new Signals()
  const auth = new AuthService(db, users, passwords, tokens, revocations, securityEvents, apiKeys, signals)
  const counters = redis ? new RedisCounterStore(redis) : new DatabaseCounterStore(db)
  const rateLimits = new RateLimitService(db, counters, tiers, logger, {
    anonymous: config.rateLimits.anonymous,
    fallback: config.rateLimits.fallback,
    failMode: config.rateLimits.failMode,
  }, signals)
  const account = new AccountService(db, users, auth, mail, securityEvents, config.mail)
  const overview = new OverviewService(db, {
    database: () => pingDatabase(db),
    ...(redis ? { redis: () => redis.ping() } : {}),
  })
  // The users module tells the account module about email changes (it cannot depend on it: the
  // account module depends on users).
  users.onEmailChanged = (user, previousEmail) => account.emailChanged(user, previousEmail)
  return {
    users,
    tiers,
    auth,
    avatars,
    posts,
    account,
    mail,
    securityEvents,
    apiKeys,
    rateLimits,
    overview,
    signals,
    async pruneExpiredState() {
      await auth.pruneExpiredState()
      await rateLimits.prune()
      await account.prune()
      await mail.pruneSent()
      await securityEvents.prune()
      await compactSearchIndex(db)
    },
    async compactSearchIndex(signal) {
      await compactSearchIndex(db, signal)
    },
    async checkReady() {
      await pingDatabase(db)
      if (redis) await redis.ping()
    },
  }
}
