// Builds the real app on a fresh, empty database: a temporary SQLite file, or a new
// PostgreSQL database created for this test file (and dropped afterwards).
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { inject } from 'vitest'

import type { AppOptions } from '../../src/app.js'
import { buildApp } from '../../src/app.js'
import { openBackends } from '../../src/backends.js'
import type { Config } from '../../src/config.js'
import { loadConfig } from '../../src/config.js'
import type { Executor } from '../../src/db/schema.js'
import { createLogger } from '../../src/logger.js'

declare module 'vitest' {
  export interface ProvidedContext {
    database: 'sqlite' | 'postgres'
    postgresUrl: string
    /** A database migrated once for the run (vitest.config.ts), which test apps' databases are copied from. */
    postgresTemplate: string
    /** PgBouncer (transaction mode) in front of postgresUrl's server, for the pgbouncer project; else empty. */
    poolerUrl: string
    /** Empty when no Redis is reachable (allowed outside CI only). */
    redisUrl: string
    /** Empty when no Chromium is installed (allowed outside CI only). */
    chromiumPath: string
    /** A PostgreSQL primary of the replica tests' own, and its hot standby; empty when they are not running (allowed outside CI only). */
    replicaPrimaryUrl: string
    replicaUrl: string
    /** HAProxy's binary; empty when it is not installed (allowed outside CI only). */
    haproxyPath: string
    /** False in the -plain projects: the app runs with FAST_PATH=off. */
    fastPath: boolean
    /** The server built once for this run (scripts/build.mjs), which tests that start server processes run. */
    serverBundle: string
  }
}

export const TEST_SECRET_KEY = 'test-secret-key-that-is-long-enough-0123456789'
export const dialect = () => inject('database')

export interface TestApp {
  app: FastifyInstance
  /** The app's own database handle, for tests that look at rows directly (the app has no such door). */
  db: Executor
  config: Config
  /** The settings the app was built with, to start another instance on the same database. */
  env: Record<string, string>
  close(): Promise<void>
}

async function withAdminClient<T>(run: (client: pg.Client) => Promise<T>, server = inject('postgresUrl')): Promise<T> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/**
 * A new database (and Redis key prefix) for one test file; returns its settings and how to drop
 * it. Empty by default; `migrated`: on PostgreSQL, a copy of the run's migrated template, which
 * the app's start then finds up to date.
 */
export async function createTestDatabase(options: { migrated?: boolean; replicated?: boolean } = {}): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ups-test-'))
  const removeDir = () => rm(dataDir, { recursive: true, force: true })
  // Its own Redis namespace too: test files run side by side against one Redis, and the client
  // addresses they make up would otherwise share per-address budgets there.
  const redisEnv = { REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`, ...(inject('fastPath') ? {} : { FAST_PATH: 'off' }) }
  if (dialect() === 'sqlite') return { env: { DATA_DIR: dataDir, ...redisEnv }, drop: removeDir }

  const name = `ups_test_${process.pid}_${randomBytes(4).toString('hex')}`
  // `replicated`: on the replica tests' own primary, which has no migrated template (the app migrates at start).
  const server = options.replicated ? inject('replicaPrimaryUrl') : inject('postgresUrl')
  const template = options.migrated && !options.replicated && inject('postgresTemplate') ? ` template ${inject('postgresTemplate')}` : ''
  await withAdminClient((client) => client.query(`create database ${name}${template}`), server)
  const url = new URL(server)
  url.pathname = `/${name}`
  const pooler = inject('poolerUrl') ? new URL(inject('poolerUrl')) : undefined
  if (pooler) pooler.pathname = `/${name}`
  // Through PgBouncer: the app's pool connects to it, migrations take the direct route, and no
  // statement_timeout is sent at connect (PgBouncer refuses startup parameters it does not know).
  const databaseEnv: Record<string, string> = pooler
    ? { DATABASE_URL: pooler.toString(), DATABASE_DIRECT_URL: url.toString(), DATABASE_STATEMENT_TIMEOUT_MS: '0' }
    : { DATABASE_URL: url.toString() }
  return {
    env: { DATA_DIR: dataDir, ...redisEnv, ...databaseEnv },
    async drop() {
      await withAdminClient((client) => client.query(`drop database if exists ${name} with (force)`), server)
      await removeDir()
    },
  }
}

export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  SECRET_KEY: TEST_SECRET_KEY,
  // High enough that ordinary tests never meet a limit; rate-limit tests lower them.
  LOGIN_RATE_LIMIT: '10000',
  MFA_RATE_LIMIT: '10000',
  ANONYMOUS_RATE_LIMIT: '1000000/60',
  DEFAULT_RATE_LIMIT: '1000000/60',
  SIGNUP_RATE_LIMIT: '1000000/60',
}

/**
 * The app on a fresh database. `env` overrides settings by their environment names (or is
 * computed from the fresh database's settings); `beforeReady` may add test-only routes before
 * the app boots.
 */
export async function createTestApp(
  env: Record<string, string> | ((databaseEnv: Record<string, string>) => Record<string, string>) = {},
  beforeReady?: (app: FastifyInstance) => void,
  appOptions: Pick<AppOptions, 'spanExporter' | 'compileSchemas'> & { replicated?: boolean } = {},
): Promise<TestApp> {
  const { replicated, ...buildOptions } = appOptions
  const database = await createTestDatabase({ migrated: true, replicated })
  const allEnv = { ...TEST_ENV, ...database.env, ...(typeof env === 'function' ? env(database.env) : env) }
  const config = loadConfig(allEnv)
  let app: FastifyInstance
  let db: Executor
  try {
    const logger = createLogger(config.logLevel)
    const secretKey = config.secretKey ?? TEST_SECRET_KEY
    const backends = await openBackends(config, secretKey, logger, { prepare: true })
    db = backends.database.db
    app = await buildApp({ config, secretKey, logger, backends, ...buildOptions })
    beforeReady?.(app)
    await app.ready()
  } catch (error) {
    await database.drop()
    throw error
  }
  return {
    app,
    db,
    config,
    env: allEnv,
    async close() {
      await app.close()
      await database.drop()
    },
  }
}
