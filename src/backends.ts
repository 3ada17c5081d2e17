// Everything the service stands on besides HTTP: the database, Redis when configured, and the
// services built over them. Opened once per process.
import type { Redis } from 'ioredis'

import type { AdminAccount, Config } from './config.js'
import { ConfigError } from './config.js'
import type { DatabaseHandle, DatabaseOptions } from './db/database.js'
import { createDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { discoverProviders } from './features/identities/index.js'
import type { Services } from './features/index.js'
import { ADMIN_VARIABLES, adminAccountProblem } from './features/users/index.js'
import type { Logger } from './logger.js'
import { createServices } from './services.js'
import { DomainError, RuleViolation } from './shared/errors.js'

export interface Backends {
  database: DatabaseHandle
  redis: Redis | undefined
  services: Services
  close(): Promise<void>
}

export interface OpenOptions {
  /**
   * Migrate the database and make sure the configured administrator exists. In cluster mode
   * the primary does this once, before any worker starts; workers skip it.
   */
  prepare: boolean
}

async function connectRedis(url: string, keyPrefix: string): Promise<Redis> {
  // Loaded only when configured: the client costs memory that SQLite-only servers do not need.
  const { Redis } = await import('ioredis')
  // Fail fast rather than queue commands while Redis is away; callers turn failures into 503s.
  // keyPrefix: ioredis puts it before every key argument, those of scripts included.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, keyPrefix })
  let lastError: unknown
  redis.on('error', (error: unknown) => (lastError = error)) // reconnection is automatic; each failed command reports itself
  try {
    await redis.connect()
  } catch (error) {
    redis.disconnect()
    // ioredis says only "Connection is closed": name the setting, where it points and why.
    const cause = lastError ?? error
    const where = new URL(url)
    where.password = where.password ? '***' : ''
    throw new Error(`REDIS_URL (${where.toString()}) is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
  return redis
}

async function ensureAdmin(logger: Logger, services: Services, admin: AdminAccount, promoteExisting: boolean): Promise<void> {
  const problem = adminAccountProblem(admin)
  if (problem) throw new ConfigError(`invalid administrator account: ${problem}`)
  let result
  try {
    result = await services.users.ensureSuperuser(admin, { promoteExisting })
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'conflict') throw new ConfigError(`ADMIN_USERNAME/ADMIN_EMAIL: ${error.message}`)
    // A field rule names its field (a reserved address is ADMIN_EMAIL's); the password's are ADMIN_PASSWORD's.
    if (error instanceof RuleViolation && error.field in ADMIN_VARIABLES) throw new ConfigError(`${ADMIN_VARIABLES[error.field]}: ${error.message}`)
    if (error instanceof DomainError && (error.kind === 'unprocessable' || error.code === 'password_breached')) throw new ConfigError(`ADMIN_PASSWORD: ${error.message}`)
    if (error instanceof DomainError && error.code === 'email_domain_blocked') throw new ConfigError(`ADMIN_EMAIL: ${error.message}`)
    throw error
  }
  const { user, outcome } = result
  const fields = { userId: user.id, username: user.username }
  if (outcome === 'promoted') logger.warn(fields, 'promoted an existing account to superuser (ADMIN_PROMOTE_EXISTING=true)')
  else logger.info(fields, outcome === 'created' ? 'created superuser' : 'superuser present')
}

/** How the configured database is opened; `direct`: over DATABASE_DIRECT_URL when set (migrations), with one connection. */
export function databaseOptions(config: Config, direct = false): DatabaseOptions {
  const viaDirect = direct && config.databaseDirectUrl !== undefined
  return {
    databaseUrl: viaDirect ? config.databaseDirectUrl : config.databaseUrl,
    dataDir: config.dataDir,
    poolMax: viaDirect ? 1 : config.databasePoolMax,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    fastPath: config.fastPath,
    observable: config.otel !== undefined,
  }
}

/** Applies pending migrations, over the direct connection when one is configured. */
export async function migrate(config: Config, database: DatabaseHandle) {
  if (config.databaseDirectUrl === undefined) return migrateToLatest(database.db)
  const direct = await createDatabase(databaseOptions(config, true))
  try {
    return await migrateToLatest(direct.db)
  } finally {
    await direct.close()
  }
}

export async function openBackends(config: Config, secretKey: string, logger: Logger, options: OpenOptions): Promise<Backends> {
  const database = await createDatabase({
    ...databaseOptions(config),
    onPoolError: (error) => logger.warn({ err: error }, 'database connection failed'),
  })
  let redis: Redis | undefined
  try {
    if (options.prepare) await migrate(config, database)
    redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisKeyPrefix) : undefined
    const services = createServices({ config, secretKey, database, redis, logger })
    const discovery = await discoverProviders(config, (name) => `${config.mail.publicUrl}/api/v2/auth/${name}/callback`, services.identities, logger)
    if (options.prepare && config.admin) await ensureAdmin(logger, services, config.admin, config.adminPromoteExisting)
    return {
      database,
      redis,
      services,
      async close() {
        discovery.stop()
        redis?.disconnect()
        await database.close()
      },
    }
  } catch (error) {
    redis?.disconnect()
    await database.close()
    throw error
  }
}
