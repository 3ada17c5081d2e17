// The only module that reads process.env. Every setting is parsed and validated here, once,
// so a bad value stops the process at start with one line naming the variable. A slice's own
// settings are read by its settings.ts (src/features/<name>/settings.ts), composed here.
import { existsSync } from 'node:fs'
import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import path from 'node:path'

import { buildOrder } from './features/composition.js'
import { FEATURES } from './features/index.js'
import type { OriginList } from './shared/origin-list.js'
import { parseOriginList } from './shared/origin-list.js'
import type { Env } from './shared/settings.js'
import type { RequestLimit } from './shared/settings.js'
import { boolean, ConfigError, integer, linkTemplate, oneOf, read, requestLimit, url } from './shared/settings.js'
import type { ApiVersion } from './versions.js'
import { API_VERSIONS, CURRENT_VERSION, isApiVersion } from './versions.js'

export type NodeEnv = 'development' | 'production' | 'test'
export type JwtAlgorithm = 'EdDSA' | 'ES256' | 'RS256' | 'HS256'
export type UserSignup = 'open' | 'authenticated'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
export type EmailVisibility = 'public' | 'owner'
export type CookieSameSite = 'lax' | 'strict' | 'none'

/**
 * Which browser origins may call the API from their pages (CORS). `any`: every origin, without
 * credentials (no cookie). Otherwise exact origins, plus `scheme://host` prefixes whose every
 * port is allowed (`http://localhost:*`); those get credentials (the refresh cookie).
 */
export { ConfigError }
export type { RequestLimit }

export type CorsOrigins = { any: true } | ({ any: false } & OriginList)



export interface AdminAccount {
  name: string
  email: string
  username: string
  password: string
}

export interface BackupConfig {
  intervalMs: number
  keep: number
}

/**
 * The core's settings; each slice adds its own (its manifest's `settings`, read by its
 * settings.ts), and the slice list adds their types to Config (src/features/index.ts).
 */
export interface CoreConfig {
  port: number
  host: string
  dataDir: string
  /** postgres:// URL; undefined means the embedded SQLite database in dataDir. */
  databaseUrl: string | undefined
  /** A direct PostgreSQL URL (not through a pooler) for migrations; undefined: DATABASE_URL. */
  databaseDirectUrl: string | undefined
  /** Connections in each process's PostgreSQL pool (each replica's too). */
  databasePoolMax: number
  /** Hot standbys of DATABASE_URL's PostgreSQL that GETs' content reads may use (docs/deploy.md, "Scale out"). */
  databaseReplicaUrls: string[]
  /** A replica further behind the primary than this is not read from until it catches up. */
  databaseReplicaMaxLagMs: number
  /** PostgreSQL statement_timeout sent when connecting; 0: none sent (the server's or role's setting applies). */
  databaseStatementTimeoutMs: number
  /** The speed layer under Kysely (src/db/fast-path); off: every query through Kysely's stock dialects. */
  fastPath: boolean
  redisUrl: string | undefined
  /** Put before every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string
  /** Undefined only outside production: the server then keeps a generated key in dataDir. */
  secretKey: string | undefined
  /** Earlier signing keys whose tokens are still accepted (key rotation); new tokens use secretKey. */
  secretKeyPrevious: string[]
  nodeEnv: NodeEnv
  logLevel: LogLevel
  userSignup: UserSignup
  admin: AdminAccount | undefined
  /** Promote an existing non-superuser account that matches ADMIN_EMAIL/ADMIN_USERNAME (else refuse to start). */
  adminPromoteExisting: boolean
  uploadMaxBytes: number
  /** Per version: public, every reader sees users' emails; owner, only the user and superusers do. */
  emailVisibility: Record<ApiVersion, EmailVisibility>
  /** Browser origins allowed to call the API (CORS_ORIGINS). */
  corsOrigins: CorsOrigins
  /** Log a new user in at sign-up (POST /api/v2/signup answers with a token pair). */
  signupLogin: boolean
  /** Origins a sign-in flow may send the browser back to (AUTH_REDIRECT_ORIGINS). */
  authRedirectOrigins: OriginList
  accessTokenMinutes: number
  refreshTokenDays: number
  /**
   * How access tokens are signed: JWT_ALGORITHM (EdDSA by default, ES256, RS256, or HS256 with
   * SECRET_KEY), JWT_PRIVATE_KEY (PKCS #8 PEM; unset: a key made and kept in the database) and
   * JWT_PRIVATE_KEY_PREVIOUS (keys still accepted during a rotation).
   */
  jwt: { algorithm: JwtAlgorithm; privateKey: string | undefined; previousPrivateKeys: string[] }
  loginRateLimit: number
  /** Password hashes at once, one worker thread each (PASSWORD_HASH_WORKERS, default: one fewer than the cores), how many may wait (PASSWORD_HASH_QUEUE), and the workers' priority (PASSWORD_HASH_NICE). */
  passwordHashing: { workers: number; queue: number; nice: number }
  deprecatedVersions: ApiVersion[]
  sunsetDates: Partial<Record<ApiVersion, string>>
  cookieSecure: boolean
  /** SameSite of the refresh cookie: none lets a frontend on another site use it (needs COOKIE_SECURE). */
  cookieSameSite: CookieSameSite
  /**
   * Which X-Forwarded-For hops to believe (Fastify's trustProxy): false, a hop count, a list of
   * proxy addresses/CIDRs, or true (every hop: clients can then pick their own address).
   */
  trustProxy: boolean | number | string[]
  /** Server processes on this machine (node:cluster); 1 runs a single process. */
  workers: number
  mail: MailConfig
  /** Writing posts needs a verified email (superusers excepted). */
  requireVerifiedEmail: boolean
  /** OpenTelemetry trace export (OTEL_EXPORTER_OTLP_ENDPOINT); undefined: off, and its packages are never loaded. */
  otel: { endpoint: string; serviceName: string } | undefined
  /** Scheduled online backups of the SQLite database into DATA_DIR/backups; undefined: none. */
  backups: BackupConfig | undefined
  /** Serve the admin console at /admin/ (ADMIN_CONSOLE). */
  adminConsole: boolean
  securityEventRetentionDays: number
  /** Outgoing events: how long change events stay readable (EVENT_RETENTION_MINUTES) and how webhooks are sent. */
  events: { retentionMinutes: number }
  /** Password-reset requests an hour, per client address and per email. */
  passwordResetRateLimit: number
  /** Verification mails an hour, per user and per recipient address. */
  verificationMailRateLimit: number
  rateLimits: RateLimitConfig
  /** Prometheus metrics on their own listener; undefined: off. */
  metrics: { port: number; host: string } | undefined
}

/** Every setting: the core's and each slice's. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Config extends CoreConfig {}

export interface RateLimitConfig {
  /** Callers without a login, per client address. */
  anonymous: RequestLimit
  /** Logged-in callers whose tier has no rule for the route. */
  fallback: RequestLimit
  /** Sign-ups per client address (POST /users/ in every version). */
  signup: RequestLimit
  /** What happens while the counters' store is unreachable (login and sign-up limits always fail closed). */
  failMode: 'open' | 'closed'
  /** false: no per-request limits (a gateway in front limits); login, sign-up and reset limits stay. */
  enabled: boolean
  /** Leading bits of an IPv6 address that name one client for every per-address budget. */
  ipv6PrefixBits: number
}

export interface MailConfig {
  transport: 'smtp' | 'file' | 'log'
  smtpUrl: string | undefined
  from: string
  /** Base of the links in mails (the service's own pages), without a trailing slash. */
  publicUrl: string
  /** Frontend link templates containing {token}; undefined: the service's own pages. */
  verifyEmailUrl: string | undefined
  resetPasswordUrl: string | undefined
  emailLoginUrl: string | undefined
  templatesDir: string | undefined
  verificationHours: number
  /** Superusers may read queued and sent mail in the admin console (MAIL_PREVIEW; on in development). */
  preview: boolean
  /** Mail a verification link to every new sign-up: REQUIRE_VERIFIED_EMAIL is on or SMTP is set. */
  verifyOnSignUp: boolean
  resetMinutes: number
  retryBaseMs: number
}





function otel(env: Env): Config['otel'] {
  const endpoint = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'])
  const serviceName = read(env, 'OTEL_SERVICE_NAME') ?? 'user-post-service'
  return endpoint === undefined ? undefined : { endpoint: endpoint.replace(/\/+$/, ''), serviceName }
}

function replicaUrls(env: Env, databaseUrl: string | undefined): string[] {
  const raw = read(env, 'DATABASE_REPLICA_URLS')
  if (raw === undefined) return []
  if (databaseUrl === undefined) throw new ConfigError('DATABASE_REPLICA_URLS needs DATABASE_URL: replicas are hot standbys of a PostgreSQL primary (SQLite has none)')
  const urls = raw.split(',').map((entry) => entry.trim()).filter(Boolean)
  for (const [index, entry] of urls.entries()) url({ [`DATABASE_REPLICA_URLS[${index}]`]: entry }, `DATABASE_REPLICA_URLS[${index}]`, ['postgres:', 'postgresql:'])
  return urls
}

function directUrl(env: Env, databaseUrl: string | undefined): string | undefined {
  const direct = url(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:'])
  if (direct !== undefined && databaseUrl === undefined) throw new ConfigError('DATABASE_DIRECT_URL needs DATABASE_URL: it is the direct route to the same PostgreSQL database')
  return direct
}

/** Scheduled backups of the embedded database: every BACKUP_INTERVAL_HOURS (a decimal), keeping BACKUP_KEEP. */
function backups(env: Env, databaseUrl: string | undefined): BackupConfig | undefined {
  const raw = read(env, 'BACKUP_INTERVAL_HOURS')
  const keep = integer(env, 'BACKUP_KEEP', 7, 1, 1000)
  if (raw === undefined) return undefined
  const hours = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN
  if (!(hours >= 0.0001 && hours <= 8760)) throw new ConfigError(`BACKUP_INTERVAL_HOURS must be a number of hours from 0.0001 to 8760, got "${raw}"`)
  if (databaseUrl !== undefined) {
    throw new ConfigError('BACKUP_INTERVAL_HOURS backs up the embedded SQLite database only; back up PostgreSQL with pg_dump (docs/deploy.md)')
  }
  return { intervalMs: Math.round(hours * 3_600_000), keep }
}

/** A PEM from the environment, where line breaks may be written as `\n`. */
const pemOf = (value: string) => value.replaceAll('\\n', '\n').trim()

/** JWT_ALGORITHM, JWT_PRIVATE_KEY and JWT_PRIVATE_KEY_PREVIOUS (PEMs one after another). */
function jwt(env: Env): Config['jwt'] {
  const algorithm = oneOf(env, 'JWT_ALGORITHM', ['EdDSA', 'ES256', 'RS256', 'HS256'] as const, 'EdDSA')
  const privateKey = read(env, 'JWT_PRIVATE_KEY')
  const previous = read(env, 'JWT_PRIVATE_KEY_PREVIOUS')
  const pems = (text: string, name: string) => {
    const found = pemOf(text).match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/g)
    if (!found) throw new ConfigError(`${name} must hold a PKCS #8 private key in PEM ("-----BEGIN PRIVATE KEY-----" …; \\n may stand for line breaks)`)
    return found
  }
  if (algorithm === 'HS256' && (privateKey !== undefined || previous !== undefined)) throw new ConfigError('JWT_PRIVATE_KEY is for JWT_ALGORITHM EdDSA, ES256 or RS256; HS256 signs with SECRET_KEY')
  const [key, ...extra] = privateKey === undefined ? [] : pems(privateKey, 'JWT_PRIVATE_KEY')
  if (extra.length > 0) throw new ConfigError('JWT_PRIVATE_KEY must hold one key (earlier ones go in JWT_PRIVATE_KEY_PREVIOUS)')
  return { algorithm, privateKey: key, previousPrivateKeys: previous === undefined ? [] : pems(previous, 'JWT_PRIVATE_KEY_PREVIOUS') }
}





function redisKeyPrefix(env: Env, name: string): string {
  const raw = read(env, name) ?? ''
  if (!/^[A-Za-z0-9_.:-]{0,64}$/.test(raw)) throw new ConfigError(`${name} must be up to 64 letters, digits or _ . : -, got "${raw}"`)
  return raw
}

const CIDR = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/

function trustProxy(env: Env, name: string): boolean | number | string[] {
  const raw = read(env, name)
  if (raw === undefined) return false
  const lower = raw.toLowerCase()
  if (['true', 'yes', 'on'].includes(lower)) return true
  if (['false', 'no', 'off', '0'].includes(lower)) return false
  if (/^\d+$/.test(raw)) return integer(env, name, 0, 1, 100)
  const entries = raw.split(',').map((part) => part.trim()).filter(Boolean)
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/')
    const version = isIP(address)
    const maxBits = version === 6 ? 128 : 32
    if (!CIDR.test(entry) || version === 0 || (bits !== undefined && Number(bits) > maxBits)) {
      throw new ConfigError(`${name} must be true, false, a hop count or a comma list of proxy addresses/CIDRs, got "${entry}"`)
    }
  }
  return entries
}

function workerCount(env: Env, name: string): number {
  const raw = read(env, name)
  if (raw?.toLowerCase() === 'auto') return availableParallelism()
  return integer(env, name, 1, 1, 64)
}

function versionList(env: Env, name: string): ApiVersion[] {
  const raw = read(env, name)
  if (raw === undefined) return []
  const versions = raw.split(',').map((part) => part.trim()).filter(Boolean)
  for (const version of versions) {
    if (!isApiVersion(version)) {
      throw new ConfigError(`${name} must list versions out of ${API_VERSIONS.join(', ')}, got "${version}"`)
    }
  }
  return [...new Set(versions)] as ApiVersion[]
}

function sunsetDates(env: Env, name: string): Partial<Record<ApiVersion, string>> {
  const raw = read(env, name)
  const dates: Partial<Record<ApiVersion, string>> = {}
  if (raw === undefined) return dates
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [version, date, ...rest] = entry.split('=').map((part) => part.trim())
    if (version === undefined || date === undefined || rest.length > 0 || !isApiVersion(version)) {
      throw new ConfigError(`${name} must look like v1=2027-06-30, got "${entry}"`)
    }
    const parsed = new Date(`${date}T00:00:00Z`)
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) {
      throw new ConfigError(`${name} has an invalid date for ${version}: "${date}" (use YYYY-MM-DD)`)
    }
    dates[version] = date
  }
  return dates
}





function admin(env: Env): AdminAccount | undefined {
  const email = read(env, 'ADMIN_EMAIL')
  const username = read(env, 'ADMIN_USERNAME')
  const password = env.ADMIN_PASSWORD
  if (email === undefined && username === undefined && (password === undefined || password === '')) return undefined
  if (email === undefined) throw new ConfigError('ADMIN_EMAIL is required when ADMIN_USERNAME or ADMIN_PASSWORD is set')
  if (username === undefined) throw new ConfigError('ADMIN_USERNAME is required when ADMIN_EMAIL or ADMIN_PASSWORD is set')
  if (password === undefined || password === '') {
    throw new ConfigError('ADMIN_PASSWORD is required when ADMIN_EMAIL or ADMIN_USERNAME is set')
  }
  if (password.length < 8 || password.length > 128) throw new ConfigError('ADMIN_PASSWORD must be 8-128 characters')
  return { name: read(env, 'ADMIN_NAME') ?? 'Administrator', email, username, password }
}

function mail(env: Env, nodeEnv: NodeEnv, port: number, host: string): MailConfig {
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:'])
  const fallback = smtpUrl ? 'smtp' : 'file'
  const transport = oneOf(env, 'MAIL_TRANSPORT', ['smtp', 'file', 'log'] as const, fallback)
  if (transport === 'smtp' && !smtpUrl) throw new ConfigError('MAIL_TRANSPORT=smtp needs SMTP_URL (smtp://user:pass@host:587 or smtps://…)')
  if (nodeEnv === 'production' && !smtpUrl && read(env, 'MAIL_TRANSPORT') !== 'log') {
    throw new ConfigError('SMTP_URL is required when NODE_ENV=production (or set MAIL_TRANSPORT=log to only log mail)')
  }
  const templatesDir = read(env, 'MAIL_TEMPLATES_DIR')
  if (templatesDir !== undefined && !existsSync(templatesDir)) throw new ConfigError(`MAIL_TEMPLATES_DIR does not exist: "${templatesDir}"`)
  const localHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  // In development the service's own pages are on http://localhost: a browser takes an IP
  // address for no domain (passkeys refuse it), and one name keeps the flows' cookies together.
  const defaultHost = nodeEnv === 'development' && isLoopbackName(localHost) ? 'localhost' : localHost.includes(':') ? `[${localHost}]` : localHost
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${defaultHost}:${port}`
  return {
    transport,
    smtpUrl,
    from: read(env, 'MAIL_FROM') ?? 'User and Post Service <no-reply@localhost>',
    publicUrl: publicUrl.replace(/\/+$/, ''),
    verifyEmailUrl: linkTemplate(env, 'VERIFY_EMAIL_URL'),
    resetPasswordUrl: linkTemplate(env, 'RESET_PASSWORD_URL'),
    emailLoginUrl: linkTemplate(env, 'EMAIL_LOGIN_URL'),
    templatesDir: templatesDir === undefined ? undefined : path.resolve(templatesDir),
    verificationHours: integer(env, 'EMAIL_VERIFICATION_HOURS', 24, 1, 24 * 30),
    preview: oneOf(env, 'MAIL_PREVIEW', ['on', 'off'] as const, nodeEnv === 'development' ? 'on' : 'off') === 'on',
    verifyOnSignUp: transport === 'smtp' || boolean(env, 'REQUIRE_VERIFIED_EMAIL', false),
    resetMinutes: integer(env, 'PASSWORD_RESET_MINUTES', 60, 5, 24 * 60),
    retryBaseMs: integer(env, 'MAIL_RETRY_BASE_MS', 2000, 10, 600_000),
  }
}

const DEVELOPMENT_CORS_ORIGINS = 'http://localhost:*,http://127.0.0.1:*'

/** The names of this machine a browser may use for a development server. */
export function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '::1' || host === '[::1]'
}

/** CORS_ORIGINS: `*`, or a comma list of origins (scheme://host[:port]); a port of `*` allows every port. */
function corsOrigins(env: Env, name: string, nodeEnv: NodeEnv): CorsOrigins {
  const raw = read(env, name) ?? (nodeEnv === 'production' ? '' : DEVELOPMENT_CORS_ORIGINS)
  const entries = raw.split(',').map((part) => part.trim()).filter(Boolean)
  if (entries.includes('*')) {
    if (entries.length > 1) throw new ConfigError(`${name}=* allows every origin and cannot be combined with others`)
    return { any: true }
  }
  const parsed = parseOriginList(entries)
  if ('invalid' in parsed) throw new ConfigError(`${name} must list origins like https://app.example.com or http://localhost:* (scheme, host and port only), got "${parsed.invalid}"`)
  return { any: false, ...parsed.list }
}

/** AUTH_REDIRECT_ORIGINS: where a sign-in flow may send the browser back to; PUBLIC_URL's origin by default, and in development every port of localhost too. */
function redirectOrigins(env: Env, name: string, publicUrl: string, nodeEnv: NodeEnv): OriginList {
  const fallback = [new URL(publicUrl).origin, ...(nodeEnv === 'development' ? [DEVELOPMENT_CORS_ORIGINS] : [])].join(',')
  const entries = (read(env, name) ?? fallback).split(',').map((part) => part.trim()).filter(Boolean)
  const parsed = parseOriginList(entries)
  if ('invalid' in parsed) throw new ConfigError(`${name} must list origins like https://app.example.com or http://localhost:* (scheme, host and port only; no *), got "${parsed.invalid}"`)
  return parsed.list
}

function cookieSameSite(env: Env, name: string, cookieSecure: boolean): CookieSameSite {
  const value = oneOf(env, name, ['lax', 'strict', 'none'] as const, 'lax')
  if (value === 'none' && !cookieSecure) throw new ConfigError(`${name}=none needs COOKIE_SECURE=true: browsers drop SameSite=None cookies that are not Secure`)
  return value
}

/** EMAIL_VISIBILITY applies to every version when set; unset, v2 shows emails to their owners only and v1 keeps its public shape. */
function emailVisibility(env: Env, name: string): Record<ApiVersion, EmailVisibility> {
  const raw = read(env, name)
  if (raw === undefined) return { v1: 'public', v2: 'owner' }
  const value = oneOf(env, name, ['public', 'owner'] as const, 'owner')
  return { v1: value, v2: value }
}

/** Parses and validates settings; throws ConfigError naming the variable on the first bad value. */
export function loadConfig(env: Env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development')
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const secretKey = read(env, 'SECRET_KEY')
  if (secretKey !== undefined && secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY must be at least 32 characters')
  }
  if (secretKey === undefined && nodeEnv === 'production') {
    throw new ConfigError('SECRET_KEY is required when NODE_ENV=production')
  }
  const secretKeyPrevious = (read(env, 'SECRET_KEY_PREVIOUS') ?? '').split(',').map((key) => key.trim()).filter(Boolean)
  if (secretKeyPrevious.some((key) => key.length < 32)) throw new ConfigError('SECRET_KEY_PREVIOUS must list keys of at least 32 characters each')
  const deprecatedVersions = versionList(env, 'DEPRECATED_VERSIONS')
  if (deprecatedVersions.includes(CURRENT_VERSION)) {
    throw new ConfigError(`DEPRECATED_VERSIONS cannot include ${CURRENT_VERSION}: it is the current version`)
  }
  const sunsets = sunsetDates(env, 'SUNSET_DATES')
  for (const version of Object.keys(sunsets)) {
    if (!deprecatedVersions.includes(version as ApiVersion)) {
      throw new ConfigError(`SUNSET_DATES names ${version}, which DEPRECATED_VERSIONS does not list`)
    }
  }
  const port = integer(env, 'PORT', 8000, 0, 65535)
  const host = read(env, 'HOST') ?? '127.0.0.1'
  const dataDir = path.resolve(read(env, 'DATA_DIR') ?? './data')
  const cookieSecure = boolean(env, 'COOKIE_SECURE', nodeEnv === 'production')
  // A person trying the service by hand signs up and logs in more than a stranger would.
  const development = nodeEnv === 'development'
  const mailConfig = mail(env, nodeEnv, port, host)
  const core: CoreConfig = {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseDirectUrl: directUrl(env, databaseUrl),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databaseReplicaUrls: replicaUrls(env, databaseUrl),
    databaseReplicaMaxLagMs: integer(env, 'DATABASE_REPLICA_MAX_LAG_MS', 2000, 1, 3_600_000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 86_400_000),
    fastPath: oneOf(env, 'FAST_PATH', ['on', 'off'] as const, 'on') === 'on',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: redisKeyPrefix(env, 'REDIS_KEY_PREFIX'),
    secretKey,
    secretKeyPrevious,
    nodeEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    userSignup: oneOf(env, 'USER_SIGNUP', ['open', 'authenticated'] as const, 'open'),
    admin: admin(env),
    adminPromoteExisting: boolean(env, 'ADMIN_PROMOTE_EXISTING', false),
    emailVisibility: emailVisibility(env, 'EMAIL_VISIBILITY'),
    corsOrigins: corsOrigins(env, 'CORS_ORIGINS', nodeEnv),
    signupLogin: boolean(env, 'SIGNUP_LOGIN', true),
    authRedirectOrigins: redirectOrigins(env, 'AUTH_REDIRECT_ORIGINS', mailConfig.publicUrl, nodeEnv),
    uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    accessTokenMinutes: integer(env, 'ACCESS_TOKEN_MINUTES', 15, 1, 24 * 60),
    jwt: jwt(env),
    refreshTokenDays: integer(env, 'REFRESH_TOKEN_DAYS', 7, 1, 365),
    loginRateLimit: integer(env, 'LOGIN_RATE_LIMIT', development ? 100 : 10, 1, 1_000_000),
    passwordHashing: {
      // One fewer than the cores, so the event loop keeps a core to itself (one on a single core).
      workers: integer(env, 'PASSWORD_HASH_WORKERS', Math.max(1, Math.min(64, availableParallelism() - 1)), 1, 64),
      queue: integer(env, 'PASSWORD_HASH_QUEUE', 100, 0, 100_000),
      nice: integer(env, 'PASSWORD_HASH_NICE', 0, 0, 19),
    },
    deprecatedVersions,
    sunsetDates: sunsets,
    cookieSecure,
    cookieSameSite: cookieSameSite(env, 'COOKIE_SAMESITE', cookieSecure),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    workers: workerCount(env, 'WORKERS'),
    mail: mailConfig,
    requireVerifiedEmail: boolean(env, 'REQUIRE_VERIFIED_EMAIL', false),
    backups: backups(env, databaseUrl),
    otel: otel(env),
    adminConsole: oneOf(env, 'ADMIN_CONSOLE', ['on', 'off'] as const, 'on') === 'on',
    securityEventRetentionDays: integer(env, 'SECURITY_EVENT_RETENTION_DAYS', 90, 1, 3650),
    events: { retentionMinutes: integer(env, 'EVENT_RETENTION_MINUTES', 60, 1, 7 * 24 * 60) },
    passwordResetRateLimit: integer(env, 'PASSWORD_RESET_RATE_LIMIT', development ? 50 : 5, 1, 1_000_000),
    verificationMailRateLimit: integer(env, 'VERIFICATION_MAIL_RATE_LIMIT', development ? 50 : 5, 1, 1_000_000),
    metrics: read(env, 'METRICS_PORT') === undefined ? undefined : { port: integer(env, 'METRICS_PORT', 9464, 0, 65535), host: read(env, 'METRICS_HOST') ?? '127.0.0.1' },
    rateLimits: {
      anonymous: requestLimit(env, 'ANONYMOUS_RATE_LIMIT', { limit: 300, periodSeconds: 60 }),
      fallback: requestLimit(env, 'DEFAULT_RATE_LIMIT', { limit: 1000, periodSeconds: 60 }),
      signup: requestLimit(env, 'SIGNUP_RATE_LIMIT', { limit: development ? 100 : 5, periodSeconds: 3600 }),
      failMode: oneOf(env, 'RATE_LIMIT_FAIL', ['open', 'closed'] as const, 'open'),
      enabled: oneOf(env, 'REQUEST_LIMITS', ['on', 'off'] as const, 'on') === 'on',
      ipv6PrefixBits: integer(env, 'RATE_LIMIT_IPV6_PREFIX', 64, 32, 128),
    },
  }
  // Each slice reads its own settings, after those of the slices it needs (avatars after files).
  const config = { ...core } as Config
  for (const feature of buildOrder(FEATURES)) Object.assign(config, feature.settings?.(env, config))
  return config
}

/** Reads `.env` (if present) under the real environment, then validates. */
export function loadConfigFromEnvironment(envFile = '.env'): Config {
  // process.loadEnvFile never overrides variables that are already set.
  if (existsSync(envFile)) process.loadEnvFile(envFile)
  return loadConfig(process.env)
}
