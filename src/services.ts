// The composition: builds the slices' services once per process (routes of every API version
// share them), each with its own slice's repository bound here to the database
// (src/db/repository.ts), and the unit of work when it needs it; then registers every slice's
// background jobs and reactions, which its feature.ts declares (src/features/index.ts).

import type { Config } from './config.js'
import { postgresSignal } from './db/change-notifications.js'
import { isPostgres } from './db/dialect.js'
import { pingDatabase } from './db/health.js'
import { bindRepository } from './db/repository.js'
import type { Unit } from './db/unit-of-work.js'
import { UnitOfWork } from './db/unit-of-work.js'
import { emailDomainsFunctions } from './features/abuse/email-domains.repository.js'
import { breachListOf, CaptchaGate, EmailDomainPolicy, PasswordScreen, RiskSignals, verifierFor } from './features/abuse/index.js'
import { AccountService } from './features/account/index.js'
import { AccountDeletionService } from './features/account-deletion/index.js'
import { OverviewService } from './features/admin/index.js'
import { overviewFunctions } from './features/admin/overview.repository.js'
import { apiKeysFunctions } from './features/api-keys/api-keys.repository.js'
import { ApiKeyService, toApiKeyRead } from './features/api-keys/index.js'
import { authFunctions } from './features/auth/auth.repository.js'
import type { EnrolmentSessions } from './features/auth/index.js'
import { AuthService, DatabaseRevocationStore, LoginThrottle, RedisRevocationStore, SigningKeys, TokenService, toSessionRead } from './features/auth/index.js'
import { signingKeysFunctions } from './features/auth/signing-keys.repository.js'
import { avatarsFunctions } from './features/avatars/avatars.repository.js'
import { AvatarService, BlobAvatarStorage, DatabaseAvatarStorage } from './features/avatars/index.js'
import { changeEventsFunctions } from './features/change-events/change-events.repository.js'
import { ChangeEventService } from './features/change-events/index.js'
import { dataExportsFunctions } from './features/data-export/data-exports.repository.js'
import type { ExportSources } from './features/data-export/index.js'
import { DataExportService } from './features/data-export/index.js'
import { DeviceAlertService, Places } from './features/device-alerts/index.js'
import { knownDevicesFunctions } from './features/device-alerts/known-devices.repository.js'
import { EmailLoginService } from './features/email-login/index.js'
import { EventStreamService, LocalSignal, redisSignal } from './features/event-streams/index.js'
import { filesFunctions } from './features/files/files.repository.js'
import type { ImageLimits } from './features/files/index.js'
import { cleanImage, createBlobStore, FileService, PostAttachments, StoreUpkeep, toFileRead, UploadUrls, withoutStoredMetadata } from './features/files/index.js'
import { identitiesFunctions } from './features/identities/identities.repository.js'
import { IdentityService, toIdentityRead } from './features/identities/index.js'
import type { FeatureContext } from './features/index.js'
import { FEATURES } from './features/index.js'
import { createMailTransport, MailService } from './features/mail/index.js'
import { outboxFunctions } from './features/mail/outbox.repository.js'
import { SecondFactorService } from './features/mfa/index.js'
import { mfaFunctions } from './features/mfa/mfa.repository.js'
import { impersonationsFunctions } from './features/moderation/impersonations.repository.js'
import { BanService, ImpersonationService } from './features/moderation/index.js'
import { OneTimeSecrets } from './features/one-time-secrets/index.js'
import { oneTimeSecretsFunctions } from './features/one-time-secrets/one-time-secrets.repository.js'
import { OrgService, toMembershipRead, toOrgEventRead, toOrgRead } from './features/orgs/index.js'
import { orgsFunctions } from './features/orgs/orgs.repository.js'
import { PasskeyService, toPasskeyRead } from './features/passkeys/index.js'
import { passkeysFunctions } from './features/passkeys/passkeys.repository.js'
import type { PostFiles } from './features/posts/index.js'
import { PostService, toPostReadV2 } from './features/posts/index.js'
import { postsFunctions } from './features/posts/posts.repository.js'
import type { Limit, LimitBucket } from './features/rate-limits/index.js'
import { DatabaseCounterStore, RateLimitService, RedisCounterStore } from './features/rate-limits/index.js'
import { rateLimitsFunctions } from './features/rate-limits/rate-limits.repository.js'
import { ReauthenticationService } from './features/reauthentication/index.js'
import { AccountRecovery } from './features/recovery/index.js'
import { SecurityEventService, toSecurityEventRead } from './features/security-events/index.js'
import { securityEventsFunctions } from './features/security-events/security-events.repository.js'
import { SignInMethods } from './features/sign-in-methods/index.js'
import { signInMethodsFunctions } from './features/sign-in-methods/sign-in-methods.repository.js'
import { TierService } from './features/tiers/index.js'
import { tiersFunctions } from './features/tiers/tiers.repository.js'
import type { User, UserLifecycle, UserScreens } from './features/users/index.js'
import { bannedUntilRead, compactSearchIndex, DomainEvents, PasswordGuesses, PasswordHasher, toUserReadV2, UserService } from './features/users/index.js'
import { searchIndexFunctions } from './features/users/search-index.repository.js'
import { userDirectoryFunctions } from './features/users/user-directory.repository.js'
import { usersFunctions } from './features/users/users.repository.js'
import { WebhookRelay, WebhookService } from './features/webhooks/index.js'
import { webhooksFunctions } from './features/webhooks/webhooks.repository.js'
import type { ServiceDependencies, Services } from './services.types.js'
import { BackgroundWork } from './shared/background-work.js'
import { coalesced } from './shared/coalesced.js'
import { mailedLink } from './shared/mailed-link.js'
import { everyItem } from './shared/paging.js'
import { RedirectAllowList } from './shared/redirect-allow-list.js'
import type { Job } from './shared/scheduler.js'
import { Scheduler } from './shared/scheduler.js'
import { SecretBox } from './shared/secret-box.js'
import { Signals } from './shared/signals.js'
import { WarnOnce } from './shared/warn-once.js'
import { VERSIONS } from './versions.js'

/** The rhythm of the background jobs that are not a feature's own setting. */
const BACKGROUND: FeatureContext['background'] = { relayIdleMs: 30_000, streamIdleMs: 30_000 }
/** Expired tokens, secrets, windows, old mail, events and deliveries are deleted this often. */
const CLEANUP_MS = 10 * 60 * 1000
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
    'invitation-org': config.orgs.invitationRateLimit,
    'invitation-inviter': config.orgs.invitationRateLimit,
  }
}

/** A user's change-event data: the v2 read shape, and `banned_until` while a ban is in force (user.banned). */
const userEventShape = (user: User) => {
  const bannedUntil = bannedUntilRead(user)
  return { ...toUserReadV2(user, true), ...(bannedUntil === null ? {} : { banned_until: bannedUntil }) }
}

export function createServices({ config, secretKey, database, redis, logger }: ServiceDependencies): Services {
  const { db } = database
  // A refusal that a setting decided (a passkey's origin) is told once per value, at warn.
  const settingWarnings = new WarnOnce(logger)
  // Each slice's repository bound to the database; its service joins units of work through it.
  const unitOfWork = new UnitOfWork(db)
  // Every background job of the process; registered below, once the services they run exist.
  // The limiter's flush, asked for on every request counted in memory: held once the jobs are registered, not looked up by name each time.
  const limiterFlush: { job?: Job } = {}
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
      : new SigningKeys({
          repository: bindRepository(signingKeysFunctions, db),
          box: new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service signing keys'),
          options: { algorithm: jwt.algorithm, privateKeyPem: jwt.privateKey, previousPrivateKeyPems: jwt.previousPrivateKeys, keepRetiredMs: (config.accessTokenMinutes + 3) * 60_000 },
          onLoadError: (error) => logger.warn({ err: error }, 'the signing keys could not be read'),
        })
  const tokens = new TokenService(
    secretKey,
    { accessSeconds: config.accessTokenMinutes * 60, refreshSeconds: config.refreshTokenDays * 24 * 60 * 60 },
    config.secretKeyPrevious,
    signingKeys,
  )
  const revocations = redis ? new RedisRevocationStore(redis) : new DatabaseRevocationStore(authRepository)
  // Files and avatars share the store (STORAGE); avatars may live in the database instead (AVATAR_STORAGE).
  const store = createBlobStore(config.files.storage)
  const storage = config.avatarStorage === 'database' ? new DatabaseAvatarStorage(bindRepository(avatarsFunctions, db)) : new BlobAvatarStorage(store)
  // Avatars are stored as every image is: through the files feature's one intake.
  const avatarLimits: ImageLimits = { maxPixels: config.files.maxPixels, maxBytes: config.uploadMaxBytes, maxBytesSetting: 'UPLOAD_MAX_BYTES' }
  const avatars = new AvatarService(storage, { clean: (data, contentType) => cleanImage(data, contentType, avatarLimits), stripped: withoutStoredMetadata })
  const oneTimeSecrets = new OneTimeSecrets(bindRepository(oneTimeSecretsFunctions, db), secretKey)
  const securityEvents = new SecurityEventService(bindRepository(securityEventsFunctions, db), config.securityEventRetentionDays)
  const transport = createMailTransport({ kind: config.mail.transport, smtpUrl: config.mail.smtpUrl, from: config.mail.from, dataDir: config.dataDir, logger })
  const mail = new MailService({
    outbox: bindRepository(outboxFunctions, db),
    transport,
    logger,
    options: { templatesDir: config.mail.templatesDir, retryBaseMs: config.mail.retryBaseMs, preview: config.mail.preview },
    wake: () => jobs.kick('mail'),
  })
  // Change events carry version 2's read shapes; a superuser's view, so the email is always there.
  const changeEvents = new ChangeEventService(bindRepository(changeEventsFunctions, db), unitOfWork, { user: userEventShape, post: toPostReadV2, org: toOrgEventRead, membership: toMembershipRead, file: toFileRead }, config.events)
  const webhookSecrets = new SecretBox(secretKey, config.secretKeyPrevious, 'user-post-service webhook secrets')
  const webhooksRepository = bindRepository(webhooksFunctions, db)
  const webhooks = new WebhookService({
    webhooks: webhooksRepository,
    unitOfWork,
    secrets: webhookSecrets,
    securityEvents,
    options: { allowPrivate: config.webhooks.allowPrivate },
    wakeRelay: () => jobs.kick('webhooks'),
  })
  const webhookRelay = new WebhookRelay({ webhooks: webhooksRepository, changeEvents, secrets: webhookSecrets, securityEvents, logger, options: config.webhooks })
  // Commits that wrote change events wake this process's relay, once per burst; other processes' relays find them at their next run.
  changeEvents.onCommitted(coalesced(() => jobs.kick('webhooks'), COMMIT_COALESCE_MS))
  const tiers = new TierService(bindRepository(tiersFunctions, db))
  // Built below: who belongs to which organization decides who reads its posts.
  const postMemberships = { rolesOf: (userId: number) => orgs.rolesOf(userId), roleIn: (unit: Unit | undefined, orgId: number, userId: number) => orgs.roleIn(unit, orgId, userId) }
  // Built below: a post's files are attached, read and removed in the post's own units of work.
  const postFiles: PostFiles = {
    attach: (unit: Unit, post: { id: number; authorId: number }, fileIds: readonly number[], attachedBy: number) => attachments.attach(unit, post, fileIds, attachedBy),
    of: (postIds: readonly number[], unit?: Unit) => attachments.of(postIds, unit),
    removeAllOfPost: (unit: Unit, postId: number) => attachments.removeAllOfPost(unit, postId),
  }
  const posts = new PostService({
    posts: bindRepository(postsFunctions, db),
    unitOfWork,
    changes: changeEvents,
    memberships: postMemberships,
    securityEvents,
    files: postFiles,
    options: { requireVerifiedEmail: config.requireVerifiedEmail },
  })
  const filesRepository = bindRepository(filesFunctions, db)
  // A file attached to a post is read under the post's rule: the posts service decides.
  const files = new FileService({
    files: filesRepository,
    unitOfWork,
    store,
    changes: changeEvents,
    mayReadPost: (reader, postId, client): Promise<boolean> => posts.canRead(reader, postId, client),
    tierQuota: (tierId) => tiers.storageQuotaOf(tierId),
    urls: new UploadUrls(secretKey),
    options: { settings: config.files, publicUrl: config.mail.publicUrl },
    onQueued: () => jobs.kick('store-deletions'),
  })
  const attachments = new PostAttachments(filesRepository, files)
  const storeUpkeep = new StoreUpkeep({
    files: filesRepository,
    unitOfWork,
    store,
    removal: files.removal,
    logger,
    options: { uploadExpirySeconds: config.files.uploadExpirySeconds },
  })
  const signals = new Signals()
  const counters = redis ? new RedisCounterStore(redis) : new DatabaseCounterStore(rateLimitsRepository)
  const rateLimits = new RateLimitService({
    repository: rateLimitsRepository,
    store: counters,
    tiers,
    logger,
    options: {
      anonymous: config.rateLimits.anonymous,
      fallback: config.rateLimits.fallback,
      buckets: limitBuckets(config),
      failMode: config.rateLimits.failMode,
      versionPrefixes: Object.values(VERSIONS).map((version) => version.prefix),
      ipv6PrefixBits: config.rateLimits.ipv6PrefixBits,
    },
    signals,
    flushSoon: () => limiterFlush.job?.soon(),
  })
  // What other features write in the unit of work of a change to a user (account and apiKeys are built below, on users).
  const userLifecycle: UserLifecycle = {
    signedUp: (unit, user) => account.welcome(unit, user),
    softDeleted: async (unit, userId) => {
      await posts.hideAllOf(unit, userId)
      await apiKeys.revokeAllOfDeleted(unit, userId)
    },
    restored: (unit, userId, deletedAt) => posts.restoreHiddenWith(unit, userId, deletedAt),
    // Built below, on users: an organization keeps an owner (409 last_owner).
    removing: async (unit, userId) => {
      await orgs.assertNotLastOwner(unit, userId)
      // Their files and data exports go with them, through the store's outbox.
      await attachments.removeAllOwnedBy(unit, userId)
      await dataExports.removeAllOf(unit, userId)
    },
  }
  // Abuse protection: the doors' CAPTCHA (risk counted in the limiter's shared store), the breach list and the address domains.
  const { abuse } = config
  const captcha = abuse.captcha
    ? new CaptchaGate({
        settings: abuse.captcha,
        verifier: verifierFor(abuse.captcha),
        risk: new RiskSignals(counters, abuse.captcha.windowSeconds, (address) => rateLimits.clientOf(address)),
        securityEvents,
        counted: (outcome, door) => signals.emit('captcha', outcome, door),
      })
    : undefined
  const passwordScreen = new PasswordScreen({
    list: breachListOf(abuse.breachedPasswords),
    failMode: abuse.breachedPasswordsFail,
    securityEvents,
    logger,
    refused: () => signals.emit('password-breached'),
  })
  const emailDomains = new EmailDomainPolicy(bindRepository(emailDomainsFunctions, db), abuse.blockDisposableEmails, securityEvents, () => signals.emit('email-domain-blocked'))
  const userScreens: UserScreens = {
    password: (password, userId, options) => passwordScreen.assertNotBreached(password, userId, options),
    emailDomain: (email, userId) => emailDomains.assertAllowed(email, null, userId),
  }
  const users = new UserService({
    users: bindRepository(usersFunctions, db),
    managedUsers: bindRepository(userDirectoryFunctions, db),
    unitOfWork,
    domainEvents,
    lifecycle: userLifecycle,
    changes: changeEvents,
    passwords,
    avatars,
    tiers,
    events: securityEvents,
    guesses: new PasswordGuesses(rateLimits),
    screens: userScreens,
  })
  const apiKeys = new ApiKeyService(bindRepository(apiKeysFunctions, db), users)
  // Asked by every removal of a way to sign in, in its unit of work.
  const signInMethods = new SignInMethods(bindRepository(signInMethodsFunctions, db))
  // The auth feature is built on these: what enrolment does to sessions is reached through it once it exists.
  const enrolmentSessions: EnrolmentSessions = {
    endOthers: (userId, client, exceptSessionId) => auth.revokeSessionsOf(userId, client, exceptSessionId),
    markProven: (sessionId, proof) => auth.markSessionProven(sessionId, proof),
  }
  const passkeys = new PasskeyService({
    repository: bindRepository(passkeysFunctions, db),
    secrets: oneTimeSecrets,
    users,
    events: securityEvents,
    unitOfWork,
    signInMethods,
    rp: {
      id: config.webauthn.rpId,
      name: config.webauthn.rpName,
      origins: config.webauthn.origins,
    },
    sessions: enrolmentSessions,
    misconfigured: (refusal) => settingWarnings.warn(refusal.refused, { reason: refusal.refused }, 'a passkey answer was refused by the passkey settings (WEBAUTHN_RP_ID, WEBAUTHN_ORIGINS)'),
  })
  const secondFactors = new SecondFactorService({
    repository: bindRepository(mfaFunctions, db),
    secrets: oneTimeSecrets,
    unitOfWork,
    box: new SecretBox(secretKey, config.secretKeyPrevious),
    users,
    passkeys,
    events: securityEvents,
    options: {
      issuer: config.mfa.issuer,
    },
    sessions: enrolmentSessions,
  })
  const loginThrottle = new LoginThrottle(users, tokens, rateLimits)
  const auth = new AuthService({
    repository: authRepository,
    users,
    passwords,
    tokens,
    revocations,
    events: securityEvents,
    apiKeys,
    signals,
    throttle: loginThrottle,
    secondFactors,
    passkeys,
  })
  const signalError = (error: unknown) => logger.warn({ err: error }, 'the change signal between processes failed; streams fall back to polling')
  const eventStreams = new EventStreamService({
    secrets: oneTimeSecrets,
    auth,
    changeEvents,
    makeSignal: () =>
      redis
        ? redisSignal(redis, `${config.redisKeyPrefix}change-events`, signalError)
        : isPostgres(db)
          ? postgresSignal(config.databaseDirectUrl ?? config.databaseUrl ?? '', db, signalError)
          : Promise.resolve(new LocalSignal()),
    logger,
    options: {
      heartbeatMs: config.eventStreams.heartbeatSeconds * 1000,
      perUser: config.eventStreams.perUser,
      perAddress: config.eventStreams.perAddress,
      clientOf: (address) => rateLimits.clientOf(address),
      facts: {
        posts: (ids) => posts.liveFactsOf(ids),
        mfaRules: (orgIds) => orgs.mfaRulesOf(orgIds),
        grants: (userId) => orgs.grantsOf(userId),
      },
    },
    // New events are read at once; a new stream's token joins the next check.
    wake: (job) => (job === 'change-feed' ? jobs.kick(job) : jobs.job(job)?.soon()),
  })
  const redirectAllowList = new RedirectAllowList(config.authRedirectOrigins)
  const identities = new IdentityService({
    repository: bindRepository(identitiesFunctions, db),
    secrets: oneTimeSecrets,
    users,
    auth,
    events: securityEvents,
    limits: rateLimits,
    unitOfWork,
    signInMethods,
    redirects: redirectAllowList,
    signupPolicy: config.userSignup,
  })
  const recovery = new AccountRecovery({ users, auth, apiKeys, passkeys, identities, secondFactors, mail, unitOfWork, events: securityEvents })
  const reauthentication = new ReauthenticationService({
    auth,
    users,
    secondFactors,
    passkeys,
    secrets: oneTimeSecrets,
    throttle: loginThrottle,
    limits: rateLimits,
    mail,
    unitOfWork,
    events: securityEvents,
  })
  const account = new AccountService({
    secrets: oneTimeSecrets,
    unitOfWork,
    users,
    auth,
    apiKeys,
    recovery,
    mail,
    events: securityEvents,
    limits: rateLimits,
    config: config.mail,
    onBackgroundError: (error) => logger.error({ err: error }, 'mailing a password-reset link failed'),
  })
  const emailLogin = new EmailLoginService({
    secrets: oneTimeSecrets,
    unitOfWork,
    users,
    auth,
    mail,
    events: securityEvents,
    limits: rateLimits,
    redirects: redirectAllowList,
    recovery,
    afterAnswer: new BackgroundWork((error) => logger.error({ err: error }, 'mailing a sign-in link failed')),
    settings: { publicUrl: config.mail.publicUrl, linkTemplate: config.mail.emailLoginUrl },
  })
  const orgs = new OrgService({
    repository: bindRepository(orgsFunctions, db),
    unitOfWork,
    secrets: oneTimeSecrets,
    users,
    secondFactors,
    mail,
    securityEvents,
    rateLimits,
    changes: changeEvents,
    options: {
      perUser: config.orgs.perUser,
      invitationDays: config.orgs.invitationDays,
      invitationLink: (token) => mailedLink(config.orgs.invitationUrl, `${config.mail.publicUrl}/account/invitation`, token),
    },
  })
  const accountDeletion = new AccountDeletionService({
    users,
    auth,
    posts,
    events: securityEvents,
    mail,
    secrets: oneTimeSecrets,
    settings: { ...config.accountDeletion, publicUrl: config.mail.publicUrl },
    logger,
    assertRemovable: (unit, userId) => orgs.assertNotLastOwner(unit, userId),
  })
  const deviceAlerts = new DeviceAlertService({
    devices: bindRepository(knownDevicesFunctions, db),
    users,
    auth,
    account,
    unitOfWork,
    mail,
    events: securityEvents,
    secrets: oneTimeSecrets,
    settings: { ...config.deviceAlerts, publicUrl: config.mail.publicUrl },
    logger,
    places: config.deviceAlerts.geoipDatabase === undefined ? undefined : Places.open(config.deviceAlerts.geoipDatabase),
  })
  if (config.deviceAlerts.enabled) auth.observeSignIns(deviceAlerts)
  // What a data export holds, each part in its own feature's read shape (never a hash or a secret).
  const exportSources: ExportSources = {
    profile: async (userId) => {
      const user = await users.get(userId)
      return { ...toUserReadV2(user, true), age: user.age, updated_at: user.updatedAt }
    },
    posts: async function* (userId) {
      for await (const post of posts.everyPostOf(userId)) yield { ...toPostReadV2(post), deleted_at: post.deletedAt }
    },
    files: async function* (userId) {
      for await (const { view, open } of files.everyFileOf(userId)) {
        const { sha256: _sha256, ...read } = toFileRead(view)
        yield { id: view.id, name: view.name, read, open }
      }
    },
    sessions: async (userId) => (await auth.liveSessionsOf(userId)).map(toSessionRead),
    devices: (userId) => deviceAlerts.devicesOf(userId),
    identities: async (userId) => (await identities.identitiesOf(userId)).map(toIdentityRead),
    passkeys: async (userId) => (await passkeys.list(userId)).map(toPasskeyRead),
    apiKeys: async (userId) =>
      (await apiKeys.list({ id: userId, isSuperuser: false })).map((key) => {
        const { prefix: _prefix, ...read } = toApiKeyRead(key)
        return read
      }),
    securityEvents: async function* (userId) {
      for await (const event of everyItem((request) => securityEvents.listOwn({ id: userId, isSuperuser: false }, {}, request))) yield toSecurityEventRead(event)
    },
    organizations: async function* (userId) {
      for await (const org of everyItem((request) => orgs.listMine({ id: userId, isSuperuser: false }, request))) yield toOrgRead(org)
    },
  }
  const dataExports = new DataExportService({
    exports: bindRepository(dataExportsFunctions, db),
    unitOfWork,
    store,
    collaborators: {
      sources: exportSources,
      ownerOf: async (userId) => {
      const user = await users.find(userId)
      return user && { id: user.id, email: user.email, name: user.name, locale: user.locale }
      },
      queueRemoval: (unit, keys) => files.queueRemoval(unit, keys),
    },
    mail,
    events: securityEvents,
    secrets: oneTimeSecrets,
    settings: { ...config.dataExport, publicUrl: config.mail.publicUrl },
    logger,
    queued: () => jobs.kick('data-exports'),
  })
  const bans = new BanService({ users, auth, unitOfWork, events: securityEvents })
  const impersonations = new ImpersonationService({
    repository: bindRepository(impersonationsFunctions, db),
    users,
    auth,
    unitOfWork,
    events: securityEvents,
    mail,
    notifyByMail: config.moderation.impersonationNotify === 'mail',
  })
  const overview = new OverviewService(bindRepository(overviewFunctions, db), {
    database: () => pingDatabase(db),
    ...(redis ? { redis: () => redis.ping() } : {}),
  })
  const services: Services = {
    users,
    tiers,
    auth,
    avatars,
    posts,
    captcha,
    passwordScreen,
    emailDomains,
    files,
    attachments,
    storeUpkeep,
    account,
    emailLogin,
    identities,
    secondFactors,
    passkeys,
    reauthentication,
    recovery,
    bans,
    impersonations,
    accountDeletion,
    deviceAlerts,
    dataExports,
    oneTimeSecrets,
    mail,
    changeEvents,
    webhooks,
    webhookRelay,
    eventStreams,
    securityEvents,
    apiKeys,
    rateLimits,
    orgs,
    overview,
    signals,
    passwords,
    tokens,
    signingKeys,
    jobs,
    // Every feature deletes what of its own has expired, in the slice list's order.
    async pruneExpiredState() {
      for (const feature of FEATURES) await feature.prune?.(services)
    },
    async compactSearchIndex(signal) {
      await compactSearchIndex(searchIndex, signal)
    },
    async checkReady() {
      await pingDatabase(db)
      if (redis) await redis.ping()
    },
  }
  // Each feature's background jobs and reactions to committed changes (its feature.ts). The
  // scheduler stops jobs by their stop order (the relays finish their run before the limiter
  // stops flushing); src/app.ts starts them when the app is ready and stops them on close.
  const context: FeatureContext = { services, config, domainEvents, crossProcessSignal: redis !== undefined || isPostgres(db), background: BACKGROUND }
  for (const feature of FEATURES) {
    for (const job of feature.jobs?.(context) ?? []) jobs.register(job)
    feature.subscribe?.(context)
  }
  jobs.register({ name: 'cleanup', intervalMs: CLEANUP_MS, runAtStart: false, run: () => services.pruneExpiredState() })
  limiterFlush.job = jobs.job('limiter-flush')
  return services
}
