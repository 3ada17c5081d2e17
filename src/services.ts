// The composition root: builds every slice's services once per process (routes of every API
// version share them) from its feature.ts, in the order of the slices' `needs`
// (src/features/composition.ts); then registers every slice's background jobs and reactions.
import type { Redis } from 'ioredis'

import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { isPostgres } from './db/dialect.js'
import { pingDatabase } from './db/health.js'
import type { ReplicaSet } from './db/replicas/replica-set.js'
import { bindRepository } from './db/repository.js'
import { UnitOfWork } from './db/unit-of-work.js'
import { composeFeatures } from './features/composition.js'
import type { BuildContext, CoreServices, FeatureContext, Services } from './features/index.js'
import { FEATURES } from './features/index.js'
import type { Logger } from './logger.js'
import { Scheduler } from './shared/scheduler.js'
import { Signals } from './shared/signals.js'
import { WarnOnce } from './shared/warn-once.js'

/** The rhythm of the background jobs that are not a feature's own setting. */
const BACKGROUND: FeatureContext['background'] = { relayIdleMs: 30_000, streamIdleMs: 30_000 }
/** Expired tokens, secrets, windows, old mail, events and deliveries are deleted this often. */
const CLEANUP_MS = 10 * 60 * 1000

export interface ServiceDependencies {
  config: Config
  secretKey: string
  database: DatabaseHandle
  redis: Redis | undefined
  /** Where replica-safe reads may run (DATABASE_REPLICA_URLS); undefined: everything on the primary. */
  replicas?: ReplicaSet | undefined
  logger: Logger
}

export function createServices({ config, secretKey, database, redis, replicas, logger }: ServiceDependencies): Services {
  const { db } = database
  const jobs = new Scheduler((error, job) => logger.warn({ err: error, job }, 'a background job failed; it runs again at its next turn'))
  const signals = new Signals()
  const core: CoreServices = {
    signals,
    jobs,
    // Every feature deletes what of its own has expired, in the slice list's order.
    async pruneExpiredState() {
      for (const feature of FEATURES) await feature.prune?.(services)
    },
    async checkReady() {
      await pingDatabase(db)
      if (redis) await redis.ping()
    },
  }
  const context: Omit<BuildContext, 'peers' | 'signInMethods'> = {
    config,
    secretKey,
    database,
    redis,
    logger,
    jobs,
    signals,
    unitOfWork: new UnitOfWork(db),
    settingWarnings: new WarnOnce(logger),
    bind: (functions, targets) => bindRepository(functions, db, targets, replicas),
  }
  const services = composeFeatures(FEATURES, context, core)
  // Each feature's background jobs and reactions to committed changes (its feature.ts). The
  // scheduler stops jobs by their stop order (the relays finish their run before the limiter
  // stops flushing); src/app.ts starts them when the app is ready and stops them on close.
  const crossProcessSignal = redis !== undefined || isPostgres(db)
  const featureContext: FeatureContext = { services, config, domainEvents: services.domainEvents, crossProcessSignal, background: BACKGROUND }
  for (const feature of FEATURES) {
    for (const job of feature.jobs?.(featureContext) ?? []) jobs.register(job)
    feature.subscribe?.(featureContext)
  }
  jobs.register({ name: 'cleanup', intervalMs: CLEANUP_MS, runAtStart: false, run: () => services.pruneExpiredState() })
  return services
}
