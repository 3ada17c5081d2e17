// Builds the services once per process; routes of every API version share them. Each service
// gets its own module's repository, bound here to the database (src/db/repository.ts), and the
// unit of work and domain events when it needs them.
import path from 'node:path'

import type { Redis } from 'ioredis'

import { toPostRead } from './api/common/posts.mappers.js'
import { toUserReadV2 } from './api/v2/mappers.js'
import type { Config } from './config.js'
import { postgresSignal } from './db/change-notifications.js'
import type { DatabaseHandle } from './db/database.js'
import { isPostgres } from './db/dialect.js'
import { pingDatabase } from './db/health.js'
import { bindRepository } from './db/repository.js'
import { UnitOfWork } from './db/unit-of-work.js'
import type { Logger } from './logger.js'
import { AccountService } from './modules/account/account.service.js'
import { apiKeysFunctions } from './modules/api-keys/api-keys.repository.js'
import { ApiKeyService } from './modules/api-keys/api-keys.service.js'
import { authFunctions } from './modules/auth/auth.repository.js'
import { AuthService } from './modules/auth/auth.service.js'
import { LoginThrottle } from './modules/auth/login-throttle.js'
import { PasswordGuesses } from './modules/auth/password-guesses.js'
import { PasswordHasher } from './modules/auth/passwords.js'
import { DatabaseRevocationStore, RedisRevocationStore } from './modules/auth/revocation-store.js'
import type { EnrolmentSessions } from './modules/auth/second-factor-gate.js'
import { SigningKeys } from './modules/auth/signing-keys.js'
import { signingKeysFunctions } from './modules/auth/signing-keys.repository.js'
import { TokenService } from './modules/auth/tokens.js'
import { DatabaseAvatarStorage, DiskAvatarStorage } from './modules/avatars/avatar-storage.js'
import { avatarsFunctions } from './modules/avatars/avatars.repository.js'
import { AvatarService } from './modules/avatars/avatars.service.js'
import { changeEventsFunctions } from './modules/change-events/change-events.repository.js'
import { ChangeEventService } from './modules/change-events/change-events.service.js'
import { DomainEvents } from './modules/domain-events.js'
import { EmailLoginService } from './modules/email-login/email-login.service.js'
import { LocalSignal } from './modules/event-streams/change-signal.js'
import { EventStreamService, SESSION_CHECK_MS } from './modules/event-streams/event-streams.service.js'
import { redisSignal } from './modules/event-streams/redis-signal.js'
import { identitiesFunctions } from './modules/identities/identities.repository.js'
import { IdentityService } from './modules/identities/identities.service.js'
import { MAIL_RELAY_INTERVAL_MS, MailService } from './modules/mail/mail.service.js'
import { outboxFunctions } from './modules/mail/outbox.repository.js'
import { createMailTransport } from './modules/mail/transports.js'
import { mfaFunctions } from './modules/mfa/mfa.repository.js'
import { SecondFactorService } from './modules/mfa/second-factors.service.js'
import { SecretBox } from './modules/mfa/secret-box.js'
import { oneTimeSecretsFunctions } from './modules/one-time-secrets/one-time-secrets.repository.js'
import { OneTimeSecrets } from './modules/one-time-secrets/one-time-secrets.service.js'
import { overviewFunctions } from './modules/overview/overview.repository.js'
import { OverviewService } from './modules/overview/overview.service.js'
import { passkeysFunctions } from './modules/passkeys/passkeys.repository.js'
import { PasskeyService } from './modules/passkeys/passkeys.service.js'
import { postsFunctions } from './modules/posts/posts.repository.js'
import { PostService } from './modules/posts/posts.service.js'
import { DatabaseCounterStore, RedisCounterStore } from './modules/rate-limits/counter-store.js'
import { rateLimitsFunctions } from './modules/rate-limits/rate-limits.repository.js'
import type { LimitBucket } from './modules/rate-limits/rate-limits.service.js'
import { RateLimitService, RULES_REFRESH_MS } from './modules/rate-limits/rate-limits.service.js'
import type { Limit } from './modules/rate-limits/rule.js'
import { FLUSH_MS } from './modules/rate-limits/shared-limiter.js'
import { ReauthenticationService } from './modules/reauthentication/reauthentication.service.js'
import { AccountRecovery } from './modules/recovery/recovery.service.js'
import { securityEventsFunctions } from './modules/security-events/security-events.repository.js'
import { SecurityEventService } from './modules/security-events/security-events.service.js'
import { signInMethodsFunctions } from './modules/sign-in-methods/sign-in-methods.repository.js'
import { SignInMethods } from './modules/sign-in-methods/sign-in-methods.service.js'
import { tiersFunctions } from './modules/tiers/tiers.repository.js'
import { TierService } from './modules/tiers/tiers.service.js'
import { compactSearchIndex } from './modules/users/search-index.js'
import { searchIndexFunctions } from './modules/users/search-index.repository.js'
import { userDirectoryFunctions } from './modules/users/user-directory.repository.js'
import type { UserLifecycle } from './modules/users/user-lifecycle.js'
import { usersFunctions } from './modules/users/users.repository.js'
import { UserService } from './modules/users/users.service.js'
import { WEBHOOK_RELAY_INTERVAL_MS, WebhookRelay } from './modules/webhooks/webhook-relay.js'
import { webhooksFunctions } from './modules/webhooks/webhooks.repository.js'
import { WebhookService } from './modules/webhooks/webhooks.service.js'
import { BackgroundWork } from './shared/background-work.js'
import { coalesced } from './shared/coalesced.js'
import { RedirectAllowList } from './shared/redirect-allow-list.js'
import { Scheduler } from './shared/scheduler.js'
import { Signals } from './shared/signals.js'
import { WarnOnce } from './shared/warn-once.js'
import { VERSIONS } from './versions.js'

export interface Services {
  users: UserService
  auth: AuthService
  avatars: AvatarService
  posts: PostService
  tiers: TierService
  account: AccountService
  /** Sign-in by a mailed link or code. */
  emailLogin: EmailLoginService
  /** Sign-in through OpenID Connect providers, and the identities linked to users. */
  identities: IdentityService
  /** TOTP authenticators and recovery codes; sign-in asks them through AuthService. */
  secondFactors: SecondFactorService
  /** Users' passkeys (WebAuthn): registration, sign-in, and the second factor through secondFactors. */
  passkeys: PasskeyService
  /** Recent proof of identity for sensitive actions (POST /reauthenticate, and the check routes declare). */
  reauthentication: ReauthenticationService
  /** What the ways into an account are, and ending those someone else may have added. */
  recovery: AccountRecovery
  /** The one store for single-use secrets. */
  oneTimeSecrets: OneTimeSecrets
  mail: MailService
  /** What changed (users, posts), for webhooks and realtime streams. */
  changeEvents: ChangeEventService
  /** Webhook endpoints and the dispatcher that delivers change events to them. */
  webhooks: WebhookService
  /** Realtime streams of change events (server-sent events). */
  eventStreams: EventStreamService
  securityEvents: SecurityEventService
  apiKeys: ApiKeyService
  rateLimits: RateLimitService
  /** The admin console's overview (superusers). */
  overview: OverviewService
  /** What the services report for monitoring (src/plugins/metrics.ts listens). */
  signals: Signals
  /** Password hashing in its worker threads, stopped with the app. */
  passwords: PasswordHasher
  /** Access and refresh tokens; its public signing keys are /.well-known/jwks.json. */
  tokens: TokenService
  /** The asymmetric signing keys (undefined with JWT_ALGORITHM=HS256): rotated by `npm run rotate-signing-key`. */
  signingKeys: SigningKeys | undefined
  /** Every background job of the process (relays, streams' feed, cleanup, the limiter's flush); src/app.ts starts and stops them. */
  jobs: Scheduler
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

/** The rhythm of the background jobs that are not a feature's own setting. */
const BACKGROUND = {
  /** The longest an idle relay waits between runs (a commit that queued work wakes it at once). */
  relayIdleMs: 30_000,
  /** The longest the streams' jobs and the limiter's flush wait while there is nothing to do. */
  streamIdleMs: 30_000,
  /** Expired tokens, secrets, windows, old mail, events and deliveries are deleted this often. */
  cleanupMs: 10 * 60 * 1000,
}
/** Commits in a burst wake the webhook relay once. */
const COMMIT_COALESCE_MS = 50

const LOGIN_WINDOW_SECONDS = 60
const PASSWORD_RESET_WINDOW_SECONDS = 3600
const VERIFICATION_MAIL_WINDOW_SECONDS = 3600
const EMAIL_LOGIN_WINDOW_SECONDS = 3600
const MFA_WINDOW_SECONDS = 3600

/** The budgets of the flows that guard credentials and mail, from their settings. */
function limitBuckets(config: Config): Record<LimitBucket, Limit> {
  const login = { limit: config.loginRateLimit, periodSeconds: LOGIN_WINDOW_SECONDS }
  const mfa = { limit: config.mfa.rateLimit, periodSeconds: MFA_WINDOW_SECONDS }
  const reset = { limit: config.passwordResetRateLimit, periodSeconds: PASSWORD_RESET_WINDOW_SECONDS }
  const emailLogin = { limit: config.emailLogin.rateLimit, periodSeconds: EMAIL_LOGIN_WINDOW_SECONDS }
  const verification = { limit: config.verificationMailRateLimit, periodSeconds: VERIFICATION_MAIL_WINDOW_SECONDS }
  return {
    'login-address': login,
    'login-account': login,
    'login-device': login,
    'mfa-address': mfa,
    'mfa-account': mfa,
    'mfa-device': mfa,
    'signup-address': config.rateLimits.signup,
    'password-reset-address': reset,
    'password-reset-email': reset,
    'email-login-address': emailLogin,
    'email-login-email': emailLogin,
    'verification-mail-user': verification,
    'verification-mail-recipient': verification,
  }
}

export function createServices({ config, secretKey, database, redis, logger }: ServiceDependencies): Services {
  const { db } = database
  // A refusal that a setting decided (a passkey's origin) is told once per value, at warn.
  const settingWarnings = new WarnOnce(logger)
  // Each module's repository bound to the database; its service joins units of work through it.
  const unitOfWork = new UnitOfWork(db)
  // Every background job of the process; registered below, once the services they run exist.
  const jobs = new Scheduler((error, job) => logger.warn({ err: error, job }, 'a background job failed; it runs again at its next turn'))
  const domainEvents = new DomainEvents((error, type) => logger.error({ err: error, event: type }, 'a reaction to a committed change failed'))
  const authRepository = bindRepository(authFunctions, db)
  const rateLimitsRepository = bindRepository(rateLimitsFunctions, db)
  const searchIndex = bindRepository(searchIndexFunctions, db)
  const passwords = new PasswordHasher(config.passwordHashing)
  const { jwt } = config
  // Retired signing keys stay published while tokens they signed live, with a margin for the other processes' minute of caching.
  const signingKeys =
    jwt.algorithm === 'HS256'
      ? undefined
      : new SigningKeys(
          bindRepository(signingKeysFunctions, db),
          new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service signing keys'),
          { algorithm: jwt.algorithm, privateKeyPem: jwt.privateKey, previousPrivateKeyPems: jwt.previousPrivateKeys, keepRetiredMs: (config.accessTokenMinutes + 3) * 60_000 },
          (error) => logger.warn({ err: error }, 'the signing keys could not be read'),
        )
  const tokens = new TokenService(
    secretKey,
    { accessSeconds: config.accessTokenMinutes * 60, refreshSeconds: config.refreshTokenDays * 24 * 60 * 60 },
    config.secretKeyPrevious,
    signingKeys,
  )
  const revocations = redis ? new RedisRevocationStore(redis) : new DatabaseRevocationStore(authRepository)
  const storage =
    config.avatarStorage === 'database'
      ? new DatabaseAvatarStorage(bindRepository(avatarsFunctions, db))
      : new DiskAvatarStorage(path.join(config.dataDir, 'avatars'))
  const avatars = new AvatarService(storage)
  const oneTimeSecrets = new OneTimeSecrets(bindRepository(oneTimeSecretsFunctions, db), secretKey)
  const securityEvents = new SecurityEventService(bindRepository(securityEventsFunctions, db), config.securityEventRetentionDays)
  const transport = createMailTransport({ kind: config.mail.transport, smtpUrl: config.mail.smtpUrl, from: config.mail.from, dataDir: config.dataDir, logger })
  const mail = new MailService(bindRepository(outboxFunctions, db), transport, logger, { templatesDir: config.mail.templatesDir, retryBaseMs: config.mail.retryBaseMs, preview: config.mail.preview }, () => jobs.kick('mail'))
  // Change events carry version 2's read shapes; a superuser's view, so the email is always there.
  const changeEvents = new ChangeEventService(bindRepository(changeEventsFunctions, db), unitOfWork, { user: (user) => toUserReadV2(user, true), post: toPostRead }, config.events)
  const webhookSecrets = new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service webhook secrets')
  const webhooksRepository = bindRepository(webhooksFunctions, db)
  const webhooks = new WebhookService(webhooksRepository, unitOfWork, webhookSecrets, securityEvents, { allowPrivate: config.webhooks.allowPrivate }, () => jobs.kick('webhooks'))
  const webhookRelay = new WebhookRelay(webhooksRepository, changeEvents, webhookSecrets, securityEvents, logger, config.webhooks)
  // Commits that wrote change events wake this process's relay, once per burst; other processes' relays find them at their next run.
  changeEvents.onCommitted(coalesced(() => jobs.kick('webhooks'), COMMIT_COALESCE_MS))
  const tiers = new TierService(bindRepository(tiersFunctions, db))
  const posts = new PostService(bindRepository(postsFunctions, db), unitOfWork, changeEvents, { requireVerifiedEmail: config.requireVerifiedEmail })
  const signals = new Signals()
  const counters = redis ? new RedisCounterStore(redis) : new DatabaseCounterStore(rateLimitsRepository)
  const rateLimits = new RateLimitService(rateLimitsRepository, counters, tiers, logger, {
    anonymous: config.rateLimits.anonymous,
    fallback: config.rateLimits.fallback,
    buckets: limitBuckets(config),
    failMode: config.rateLimits.failMode,
    versionPrefixes: Object.values(VERSIONS).map((version) => version.prefix),
    ipv6PrefixBits: config.rateLimits.ipv6PrefixBits,
  }, signals, () => limiterFlush.soon())
  // What other features write in the unit of work of a change to a user (account and apiKeys are built below, on users).
  const userLifecycle: UserLifecycle = {
    signedUp: (unit, user) => account.welcome(unit, user),
    softDeleted: async (unit, userId) => {
      await posts.hideAllOf(unit, userId)
      await apiKeys.revokeAllOfDeleted(unit, userId)
    },
    restored: (unit, userId, deletedAt) => posts.restoreHiddenWith(unit, userId, deletedAt),
  }
  const users = new UserService(bindRepository(usersFunctions, db), bindRepository(userDirectoryFunctions, db), unitOfWork, domainEvents, userLifecycle, changeEvents, passwords, avatars, tiers, securityEvents, new PasswordGuesses(rateLimits))
  const apiKeys = new ApiKeyService(bindRepository(apiKeysFunctions, db), users)
  // Asked by every removal of a way to sign in, in its unit of work.
  const signInMethods = new SignInMethods(bindRepository(signInMethodsFunctions, db))
  // The auth module is built on these: what enrolment does to sessions is reached through it once it exists.
  const enrolmentSessions: EnrolmentSessions = {
    endOthers: (userId, client, exceptSessionId) => auth.revokeSessionsOf(userId, client, exceptSessionId),
    markProven: (sessionId, proof) => auth.markSessionProven(sessionId, proof),
  }
  const passkeys = new PasskeyService(bindRepository(passkeysFunctions, db), oneTimeSecrets, users, securityEvents, unitOfWork, signInMethods, {
    id: config.webauthn.rpId,
    name: config.webauthn.rpName,
    origins: config.webauthn.origins,
  }, enrolmentSessions, (refusal) => settingWarnings.warn(refusal.refused, { reason: refusal.refused }, 'a passkey answer was refused by the passkey settings (WEBAUTHN_RP_ID, WEBAUTHN_ORIGINS)'))
  const secondFactors = new SecondFactorService(bindRepository(mfaFunctions, db), oneTimeSecrets, unitOfWork, new SecretBox(secretKey, config.secretKeyPrevious), users, passkeys, securityEvents, {
    issuer: config.mfa.issuer,
  }, enrolmentSessions)
  const loginThrottle = new LoginThrottle(users, tokens, rateLimits)
  const auth = new AuthService(authRepository, users, passwords, tokens, revocations, securityEvents, apiKeys, signals, loginThrottle, secondFactors, passkeys)
  const signalError = (error: unknown) => logger.warn({ err: error }, 'the change signal between processes failed; streams fall back to polling')
  const eventStreams = new EventStreamService(
    oneTimeSecrets,
    auth,
    changeEvents,
    () =>
      redis
        ? redisSignal(redis, `${config.redisKeyPrefix}change-events`, signalError)
        : isPostgres(db)
          ? postgresSignal(config.databaseDirectUrl ?? config.databaseUrl ?? '', db, signalError)
          : Promise.resolve(new LocalSignal()),
    logger,
    {
      heartbeatMs: config.eventStreams.heartbeatSeconds * 1000,
      perUser: config.eventStreams.perUser,
      perAddress: config.eventStreams.perAddress,
      clientOf: (address) => rateLimits.clientOf(address),
    },
    // New events are read at once; a new stream's token joins the next check.
    (job) => (job === 'change-feed' ? jobs.kick(job) : jobs.job(job)?.soon()),
  )
  const redirectAllowList = new RedirectAllowList(config.authRedirectOrigins)
  const identities = new IdentityService(bindRepository(identitiesFunctions, db), oneTimeSecrets, users, auth, securityEvents, rateLimits, unitOfWork, signInMethods, redirectAllowList, config.userSignup)
  const recovery = new AccountRecovery(users, auth, apiKeys, passkeys, identities, secondFactors, mail, unitOfWork, securityEvents)
  const reauthentication = new ReauthenticationService(auth, users, secondFactors, passkeys, oneTimeSecrets, loginThrottle, rateLimits, mail, unitOfWork, securityEvents)
  const account = new AccountService(oneTimeSecrets, unitOfWork, users, auth, apiKeys, recovery, mail, securityEvents, rateLimits, config.mail, (error) =>
    logger.error({ err: error }, 'mailing a password-reset link failed'),
  )
  const emailLogin = new EmailLoginService(
    oneTimeSecrets,
    unitOfWork,
    users,
    auth,
    mail,
    securityEvents,
    rateLimits,
    redirectAllowList,
    recovery,
    new BackgroundWork((error) => logger.error({ err: error }, 'mailing a sign-in link failed')),
    { publicUrl: config.mail.publicUrl, linkTemplate: config.mail.emailLoginUrl },
  )
  // Reactions to committed changes: the one domain event, and who hears it.
  domainEvents.subscribe('user.email_changed', ({ user, previousEmail }) => account.emailChanged(user, previousEmail))
  const overview = new OverviewService(bindRepository(overviewFunctions, db), {
    database: () => pingDatabase(db),
    ...(redis ? { redis: () => redis.ping() } : {}),
  })
  async function pruneExpiredState(): Promise<void> {
    await auth.pruneExpiredState()
    await rateLimits.prune()
    await oneTimeSecrets.prune()
    await signingKeys?.prune()
    await mail.pruneSent()
    await changeEvents.prune()
    await webhooks.prune()
    await securityEvents.prune()
    await compactSearchIndex(searchIndex)
  }
  // Background work: each job of the process, its rhythm, how far it backs off while it finds
  // nothing, and its place in the shutdown order (the relays finish their run before the
  // limiter stops flushing). src/app.ts starts them when the app is ready and stops them on close.
  const { relayIdleMs, streamIdleMs } = BACKGROUND
  jobs.register({ name: 'mail', intervalMs: MAIL_RELAY_INTERVAL_MS, idleIntervalMs: relayIdleMs, stopOrder: 1, run: (signal) => mail.dispatch(signal) })
  jobs.register({ name: 'webhooks', intervalMs: WEBHOOK_RELAY_INTERVAL_MS, idleIntervalMs: relayIdleMs, stopOrder: 1, run: (signal) => webhookRelay.dispatch(signal) })
  // Without a signal between processes (SQLite alone), other processes' events are found by reading often while streams are open.
  jobs.register({ name: 'change-feed', intervalMs: redis || isPostgres(db) ? 1000 : 250, idleIntervalMs: streamIdleMs, run: () => eventStreams.readChanges() })
  jobs.register({ name: 'stream-sessions', intervalMs: SESSION_CHECK_MS, idleIntervalMs: streamIdleMs, runAtStart: false, run: () => eventStreams.checkTokens() })
  jobs.register({ name: 'cleanup', intervalMs: BACKGROUND.cleanupMs, runAtStart: false, run: () => pruneExpiredState() })
  jobs.register({ name: 'rate-limit-rules', intervalMs: RULES_REFRESH_MS, runAtStart: false, run: () => rateLimits.refreshRules() })
  // Asked for on every request counted in memory: held here rather than looked up by name each time.
  const limiterFlush = jobs.register({ name: 'limiter-flush', intervalMs: FLUSH_MS, idleIntervalMs: streamIdleMs, jitter: 0, stopOrder: 2, run: () => rateLimits.flushCounts() })
  return {
    users,
    tiers,
    auth,
    avatars,
    posts,
    account,
    emailLogin,
    identities,
    secondFactors,
    passkeys,
    reauthentication,
    recovery,
    oneTimeSecrets,
    mail,
    changeEvents,
    webhooks,
    eventStreams,
    securityEvents,
    apiKeys,
    rateLimits,
    overview,
    signals,
    passwords,
    tokens,
    signingKeys,
    jobs,
    pruneExpiredState,
    async compactSearchIndex(signal) {
      await compactSearchIndex(searchIndex, signal)
    },
    async checkReady() {
      await pingDatabase(db)
      if (redis) await redis.ping()
    },
  }
}
