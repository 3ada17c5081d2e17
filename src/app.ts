// Builds the whole service as one Fastify instance: database (migrated), shared state, plugins
// and every API version. server.ts listens; tests call buildApp and use app.inject.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import healthRoutes from './api/health.routes.js'
import mediaRoutes from './api/media.routes.js'
import v1 from './api/v1/index.js'
import v2 from './api/v2/index.js'
import versionsRoutes from './api/versions.routes.js'
import { VERSIONS } from './api/versions.js'
import { ConfigError } from './config.js'
import type { AdminAccount, Config } from './config.js'
import { createDatabase } from './db/database.js'
import type { DatabaseHandle } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { createLogger } from './logger.js'
import type { Logger } from './logger.js'
import authentication from './plugins/authentication.js'
import errorHandler from './plugins/error-handler.js'
import accessLog from './plugins/access-log.js'
import rateLimit from './plugins/rate-limit.js'
import responseHeaders from './plugins/response-headers.js'
import servicesPlugin from './plugins/services.js'
import { createValidatorCompiler } from './plugins/validation.js'
import { adminAccountProblem } from './modules/users/admin-account.js'
import { createServices } from './services.js'
import type { Services } from './services.js'

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024
const PRUNE_INTERVAL_MS = 10 * 60 * 1000

export interface AppOptions {
  config: Config
  secretKey: string
  /** An already open database; by default one is opened from the configuration. */
  database?: DatabaseHandle
  /** By default one is made from LOG_LEVEL. */
  logger?: Logger
}

async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when configured: the client costs memory that SQLite-only servers do not need.
  const { Redis } = await import('ioredis')
  // Fail fast rather than queue commands while Redis is away; callers turn failures into 503s.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  redis.on('error', () => {}) // reconnection is automatic; each failed command reports itself
  await redis.connect()
  return redis
}

async function ensureAdmin(logger: Logger, services: Services, admin: AdminAccount): Promise<void> {
  const problem = adminAccountProblem(admin)
  if (problem) throw new ConfigError(`invalid administrator account: ${problem}`)
  const { user, created } = await services.users.ensureSuperuser(admin)
  logger.info({ userId: user.id, username: user.username }, created ? 'created superuser' : 'superuser present')
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, secretKey } = options
  const logger = options.logger ?? createLogger(config.logLevel)
  const app = Fastify({
    logger: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    requestTimeout: 60_000,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.setValidatorCompiler(createValidatorCompiler())
  // The API speaks JSON (and forms/multipart where declared); plain text gets a 415.
  app.removeContentTypeParser('text/plain')

  const database =
    options.database ??
    (await createDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      onPoolError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
    }))
  let redis: Redis | undefined
  let services: Services
  try {
    await migrateToLatest(database.db)
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined
    services = createServices({ config, secretKey, database, redis })
    if (config.admin) await ensureAdmin(logger, services, config.admin)
  } catch (error) {
    redis?.disconnect()
    await database.close()
    throw error
  }

  const pruneTimer = setInterval(() => {
    services.pruneExpiredState().catch((error: unknown) => logger.warn({ err: error }, 'pruning expired state failed'))
  }, PRUNE_INTERVAL_MS).unref()
  app.addHook('onClose', async () => {
    clearInterval(pruneTimer)
    redis?.disconnect()
    await database.close()
  })

  await app.register(servicesPlugin, { config, logger, db: database.db, services })
  await app.register(accessLog)
  await app.register(errorHandler)
  await app.register(responseHeaders)
  await app.register(rateLimit, { db: database.db, redis })
  await app.register(authentication)

  await app.register(healthRoutes)
  await app.register(mediaRoutes)
  await app.register(versionsRoutes)
  await app.register(v1, { prefix: VERSIONS.v1.prefix })
  await app.register(v2, { prefix: VERSIONS.v2.prefix })
  return app
}
