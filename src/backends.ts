// Everything the service stands on besides HTTP: the database, Redis when configured, and the
// services built over them. Opened once per process.
import type { Redis } from 'ioredis'

import type { Config } from './config.js'
import type { DatabaseHandle, DatabaseOptions } from './db/database.js'
import { createDatabase } from './db/database.js'
import { latestMigration, migrateToLatest } from './db/migrate.js'
import { ReplicaSet } from './db/replicas/replica-set.js'
import { MemoryWalPositions, RedisWalPositions } from './db/replicas/wal-positions.js'
import type { Services } from './features/index.js'
import { FEATURES } from './features/index.js'
import type { Logger } from './logger.js'
import { createServices } from './services.js'

export interface Backends {
  database: DatabaseHandle
  redis: Redis | undefined
  /** The read replicas, when DATABASE_REPLICA_URLS lists any. */
  replicas: ReplicaSet | undefined
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
  let replicas: ReplicaSet | undefined
  const running: { stop(): void }[] = []
  try {
    if (options.prepare) await migrate(config, database)
    redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisKeyPrefix) : undefined
    replicas = await openReplicas(config, database, redis, logger)
    const services = createServices({ config, secretKey, database, redis, replicas, logger })
    // What the slices keep running while the process serves (a provider's discovery), then what
    // must exist before it serves (the configured administrator).
    for (const feature of FEATURES) if (feature.open) running.push(await feature.open({ services, config, logger }))
    if (options.prepare) for (const feature of FEATURES) await feature.prepare?.({ services, config, logger })
    return {
      database,
      redis,
      replicas,
      services,
      async close() {
        for (const started of running) started.stop()
        redis?.disconnect()
        await replicas?.close()
        await database.close()
      },
    }
  } catch (error) {
    for (const started of running) started.stop()
    redis?.disconnect()
    await replicas?.close()
    await database.close()
    throw error
  }
}

/**
 * The hot standbys of DATABASE_REPLICA_URLS, each with its own pool, watched from the start. A
 * replica that does not answer yet is opened all the same: the monitor uses it once it does.
 */
async function openReplicas(config: Config, database: DatabaseHandle, redis: Redis | undefined, logger: Logger): Promise<ReplicaSet | undefined> {
  if (config.databaseReplicaUrls.length === 0) return undefined
  const replicas = await Promise.all(
    config.databaseReplicaUrls.map(async (url, index) => {
      const name = `replica-${index + 1}`
      const handle = await createDatabase({ ...databaseOptions(config), databaseUrl: url, onPoolError: (error) => logger.warn({ err: error, replica: name }, 'replica connection failed') })
      return { name, handle }
    }),
  )
  // A caller's write position must outlive the longest lag a replica in use may have.
  const keepMs = Math.max(60_000, 3 * config.databaseReplicaMaxLagMs)
  const set = new ReplicaSet({
    primary: database.db,
    replicas,
    positions: redis ? new RedisWalPositions(redis, keepMs) : new MemoryWalPositions(keepMs),
    maxLagMs: config.databaseReplicaMaxLagMs,
    schemaVersion: latestMigration(),
    onError: (error, replica) => logger.warn({ err: error, replica }, 'a database did not answer the replica monitor; reads stay on the primary'),
  })
  await set.start()
  return set
}
