// The server's start (src/server.ts loads it): read configuration, build the app, listen, and
// shut down gracefully on SIGTERM. With WORKERS > 1 the primary process prepares the database
// once and runs that many workers (node:cluster), which share the port; state they must agree on
// lives in the database or Redis.
import cluster from 'node:cluster'
import path from 'node:path'

import closeWithGrace from 'close-with-grace'

import { buildApp } from './app.js'
import { openBackends } from './backends.js'
import { flushCompileCache } from './compile-cache.js'
import type { Config } from './config.js'
import { ConfigError, loadConfigFromEnvironment } from './config.js'
import { scheduleBackups } from './db/backup-schedule.js'
import { holdDataDirectory } from './db/data-dir-lock.js'
import type { Logger } from './logger.js'
import { createLogger } from './logger.js'
import type { MetricsServer } from './metrics-server.js'
import { loadOrCreateSecretKey } from './shared/secret-key.js'
import { SHUTDOWN_GRACE_MS } from './shutdown.js'

/** A worker that dies this soon after starting is not restarted: something is wrong with all of them. */
const WORKER_MIN_LIFETIME_MS = 5_000

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

async function resolveSecretKey(config: Config, logger: Logger): Promise<string> {
  if (config.secretKey !== undefined) return config.secretKey
  const stored = await loadOrCreateSecretKey(config.dataDir)
  if (stored.created) {
    logger.warn(`SECRET_KEY is not set: generated one in ${stored.file} (development only; set SECRET_KEY in production)`)
  }
  return stored.key
}

/**
 * What the one process that owns the embedded database does (the only process, or the cluster's
 * primary): mark DATA_DIR as in use, so a restore refuses, and make the scheduled backups.
 * Returns how to stop the backups.
 */
function ownEmbeddedDatabase(config: Config, logger: Logger): () => Promise<void> {
  if (config.databaseUrl !== undefined) return async () => {}
  process.once('exit', holdDataDirectory(config.dataDir))
  if (!config.backups) return async () => {}
  logger.info({ everyMinutes: config.backups.intervalMs / 60_000, keep: config.backups.keep }, 'scheduled backups on')
  return scheduleBackups(config.dataDir, config.backups, logger)
}

/** Where a person trying the service finds things: the docs, the admin console, the mail it writes. */
function developmentAddresses(config: Config, address: string): string[] {
  const lines = [`API docs: ${address}/api/v2/docs (v1: ${address}/services/v1/docs)`]
  if (config.adminConsole) lines.push(`Admin console: ${address}/admin/ (for superusers: npm run create-superuser -- --email you@example.com --username you)`)
  if (config.mail.transport === 'file') lines.push(`Mail is written to ${path.join(config.dataDir, 'mail')}${config.adminConsole ? ` and listed at ${address}/admin/#/mail` : ''}`)
  else if (config.mail.transport === 'log') lines.push('Mail is written to this log (MAIL_TRANSPORT=log)')
  return lines
}

async function runServer(config: Config, logger: Logger, secretKey: string): Promise<void> {
  const app = await buildApp({ config, secretKey, logger, prepare: !cluster.isWorker })
  const stopBackups = cluster.isWorker ? async () => {} : ownEmbeddedDatabase(config, logger)
  let metricsServer: MetricsServer | undefined
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an unexpected error')
    else logger.info({ signal }, 'shutting down: finishing in-flight requests')
    await stopBackups()
    await metricsServer?.close()
    await app.close()
  })
  // Metrics answer before the process says it listens: a worker that says so is in the primary's scrape.
  if (config.metrics && app.metrics) {
    const [{ AggregatorRegistry }, { registrySource, startMetricsServer }] = await Promise.all([import('prom-client'), import('./metrics-server.js')])
    if (cluster.isWorker) {
      // The primary serves one scrape for all workers; each worker answers it with its registry
      // (constructing an AggregatorRegistry is what makes prom-client listen for the question).
      new AggregatorRegistry()
      AggregatorRegistry.setRegistries([app.metrics])
    } else {
      metricsServer = await startMetricsServer(registrySource(app.metrics), config.metrics.host, config.metrics.port)
      logger.info(`Metrics at http://${config.metrics.host}:${metricsServer.port}/metrics`)
    }
  }
  const address = await app.listen({ port: config.port, host: config.host })
  logger.info(`Server listening at ${address}`)
  flushCompileCache()
  // One process says it (the first worker when there are several), at the address a browser should use.
  if (config.nodeEnv === 'development' && (cluster.worker?.id ?? 1) === 1) {
    // PORT=0 lets the system choose: the address it chose, under PUBLIC_URL's name.
    const shown = new URL(config.mail.publicUrl).port === '0' ? Object.assign(new URL(address), { hostname: new URL(config.mail.publicUrl).hostname }).origin : config.mail.publicUrl
    for (const line of developmentAddresses(config, shown)) logger.info(line)
  }
}

async function runPrimary(config: Config, logger: Logger, secretKey: string): Promise<void> {
  // Migrations and the administrator once, here, so workers never race each other for them.
  const backends = await openBackends(config, secretKey, logger, { prepare: true })
  await backends.close()
  const stopBackups = ownEmbeddedDatabase(config, logger)

  let stopping = false
  const startedAt = new Map<number, number>()
  const fork = () => startedAt.set(cluster.fork().id, Date.now())

  /** Asks every worker to finish its in-flight requests and exit; exits once they all have. */
  const stop = (exitCode: number) => {
    if (stopping) return
    stopping = true
    void stopBackups()
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined)
    const exits = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)))
    for (const worker of workers) worker.process.kill('SIGTERM')
    const deadline = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 1_000)
    void Promise.all(exits).then(() => {
      clearTimeout(deadline)
      process.exit(exitCode)
    })
  }

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0)
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited')
    if (lived >= WORKER_MIN_LIFETIME_MS) return void fork()
    logger.fatal(`a worker exited ${lived} ms after starting; stopping`)
    stop(1)
  })
  for (let i = 0; i < config.workers; i++) fork()
  logger.info({ workers: config.workers }, 'cluster primary started')
  if (config.metrics) {
    const [{ AggregatorRegistry }, { startMetricsServer }] = await Promise.all([import('prom-client'), import('./metrics-server.js')])
    const aggregator = new AggregatorRegistry()
    const source = { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() }
    const server = await startMetricsServer(source, config.metrics.host, config.metrics.port)
    logger.info(`Metrics of every worker at http://${config.metrics.host}:${server.port}/metrics`)
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      logger.info({ signal }, 'shutting down: stopping workers')
      stop(0)
    })
  }
}

async function main(): Promise<void> {
  let config: Config
  try {
    config = loadConfigFromEnvironment()
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`)
    throw error
  }
  const logger = createLogger(config.logLevel)
  const secretKey = await resolveSecretKey(config, logger)
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config, logger, secretKey)
  else await runServer(config, logger, secretKey)
}

main().catch((error: unknown) => {
  fail(`Failed to start: ${error instanceof Error ? error.message : String(error)}`)
})
