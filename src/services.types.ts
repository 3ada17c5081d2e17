// What the composition (src/services.ts) builds once per process: every feature's service, which
// routes reach through app.services and features' jobs through their context. Apart from
// services.ts so that a feature's feature.ts can name it without a circle through the slice list.
import type { Redis } from 'ioredis'

import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import type { CaptchaGate, EmailDomainPolicy, PasswordScreen } from './features/abuse/index.js'
import type { AccountService } from './features/account/index.js'
import type { AccountDeletionService } from './features/account-deletion/index.js'
import type { OverviewService } from './features/admin/index.js'
import type { ApiKeyService } from './features/api-keys/index.js'
import type { AuthService, SigningKeys, TokenService } from './features/auth/index.js'
import type { AvatarService } from './features/avatars/index.js'
import type { ChangeEventService } from './features/change-events/index.js'
import type { DataExportService } from './features/data-export/index.js'
import type { DeviceAlertService } from './features/device-alerts/index.js'
import type { EmailLoginService } from './features/email-login/index.js'
import type { EventStreamService } from './features/event-streams/index.js'
import type { FileService, PostAttachments, StoreUpkeep } from './features/files/index.js'
import type { IdentityService } from './features/identities/index.js'
import type { MailService } from './features/mail/index.js'
import type { SecondFactorService } from './features/mfa/index.js'
import type { BanService, ImpersonationService } from './features/moderation/index.js'
import type { OneTimeSecrets } from './features/one-time-secrets/index.js'
import type { OrgService } from './features/orgs/index.js'
import type { PasskeyService } from './features/passkeys/index.js'
import type { PostService } from './features/posts/index.js'
import type { RateLimitService } from './features/rate-limits/index.js'
import type { ReauthenticationService } from './features/reauthentication/index.js'
import type { AccountRecovery } from './features/recovery/index.js'
import type { SecurityEventService } from './features/security-events/index.js'
import type { TierService } from './features/tiers/index.js'
import type { PasswordHasher, UserService } from './features/users/index.js'
import type { WebhookRelay, WebhookService } from './features/webhooks/index.js'
import type { Logger } from './logger.js'
import type { Scheduler } from './shared/scheduler.js'
import type { Signals } from './shared/signals.js'

export interface Services {
  users: UserService
  auth: AuthService
  avatars: AvatarService
  posts: PostService
  /** Undefined without a CAPTCHA provider (or with CAPTCHA_MODE=off). */
  captcha: CaptchaGate | undefined
  /** New passwords against the breach list (BREACHED_PASSWORDS). */
  passwordScreen: PasswordScreen
  /** Which address domains may sign up (BLOCK_DISPOSABLE_EMAILS and the superusers' lists). */
  emailDomains: EmailDomainPolicy
  /** Uploads, reading files under their post's rule, variants, usage. */
  files: FileService
  /** Files as posts' attachments (the posts service calls it in its units of work). */
  attachments: PostAttachments
  /** The store's outbox, expired uploads and the reconciling sweep. */
  storeUpkeep: StoreUpkeep
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
  bans: BanService
  accountDeletion: AccountDeletionService
  deviceAlerts: DeviceAlertService
  dataExports: DataExportService
  impersonations: ImpersonationService
  /** What the ways into an account are, and ending those someone else may have added. */
  recovery: AccountRecovery
  /** The one store for single-use secrets. */
  oneTimeSecrets: OneTimeSecrets
  mail: MailService
  /** What changed (users, posts), for webhooks and realtime streams. */
  changeEvents: ChangeEventService
  /** Webhook endpoints: their CRUD, secrets and deliveries' history. */
  webhooks: WebhookService
  /** Sends the webhooks' due deliveries (a background job). */
  webhookRelay: WebhookRelay
  /** Realtime streams of change events (server-sent events). */
  eventStreams: EventStreamService
  securityEvents: SecurityEventService
  apiKeys: ApiKeyService
  rateLimits: RateLimitService
  /** Organizations: members with roles, invitations by verified email. */
  orgs: OrgService
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
