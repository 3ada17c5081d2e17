// Every HTTP-level test runs twice: once on SQLite, once on a real PostgreSQL server; the
// Redis tests use a real Redis. In CI a missing PostgreSQL or Redis fails the run; on a laptop
// without one, those tests are skipped with one line saying so.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'

import pg from 'pg'
import type { TestProjectInlineConfiguration } from 'vitest/config'
import { configDefaults, defineConfig } from 'vitest/config'

const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
// PgBouncer in transaction mode in front of the same server (.ci/run starts one on this port).
const pgbouncerUrl = process.env.TEST_PGBOUNCER_URL ?? 'postgres://postgres@127.0.0.1:6543/postgres'
const chromiumPath = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium'
// A PostgreSQL primary and its hot standby (scripts/test-services.sh makes them) and HAProxy, for
// the read-replica and multi-node tests.
const replicaPrimaryUrl = process.env.TEST_REPLICA_PRIMARY_URL ?? 'postgres://postgres@127.0.0.1:5434/postgres'
const replicaUrl = process.env.TEST_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres'
const haproxyPath = process.env.TEST_HAPROXY ?? '/usr/sbin/haproxy'
const inCi = Boolean(process.env.CI) && process.env.CI !== 'false'

async function postgresReachable(connectionString = postgresUrl): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(redisUrl)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 3000 })
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => {
      socket.destroy()
      resolve(data.toString().startsWith('+PONG'))
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}

/** A PostgreSQL that answers and is a hot standby (in recovery). */
async function standbyReachable(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')
    return rows[0]?.standby === true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

function unreachable(service: string, url: string, variable: string): void {
  const where = url.replace(/:[^:@/]*@/, ':***@')
  if (inCi) throw new Error(`${service} is required in CI but is not available at ${where}`)
  console.warn(`\n⚠ ${service} is not available at ${where}: skipping the ${service} tests (set ${variable} to run them)\n`)
}

// Tests that talk to a database; the rest (configuration, pure functions) need only one run.
const databaseTests = [
  'test/api/**/*.test.ts',
  'test/db/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/multi-process/**/*.test.ts',
  'test/browser/admin.test.ts',
  'test/browser/admin-mfa.test.ts',
  'test/browser/frontend.test.ts',
  // Each feature's own tests, beside its code (src/features/<name>/).
  'src/features/**/*.test.ts',
]
// A feature's browser test, the storage drivers' contract, the image functions and the slices'
// unit tests (a service on fakes of its store, *.unit.test.ts) exercise no database code of their
// own: one run is enough.
const sqliteOnlyTests = ['src/features/**/*.unit.test.ts', 'src/features/event-streams/event-streams.browser.test.ts', 'src/features/files/files.browser.test.ts', 'src/features/abuse/captcha.browser.test.ts', 'src/features/posts/markdown.browser.test.ts', 'src/features/files/storage/blob-store.contract.test.ts', 'src/features/files/images/*.test.ts']

// The tests of the data paths (users, auth, posts, sessions, the mail outbox, rate limits and
// keys, and the event stream's listener) run a third time through PgBouncer in transaction mode
// (nothing may lean on session state), and once more on each database with the speed layer off.
// The other features' tests run on SQLite and PostgreSQL only.
const pooledTests = [
  'src/features/**/*.v1.test.ts',
  'src/features/users/users.v2.test.ts',
  'src/features/posts/posts.v2.test.ts',
  'src/features/sign-up/sign-up.v2.test.ts',
  'src/features/posts/cursor-paging.v2.test.ts',
  'src/features/admin/admin.v2.test.ts',
  'src/features/event-streams/event-streams.v2.test.ts',
  'src/features/account/account.test.ts',
  'src/features/auth/sessions.test.ts',
  'src/features/mail/mail-outbox.test.ts',
  'src/features/rate-limits/limits.test.ts',
  'src/features/auth/login-limits.test.ts',
  'test/api/request-limits.test.ts',
  'src/features/api-keys/api-keys.test.ts',
  'src/features/users/users-restore.test.ts',
  'src/features/one-time-secrets/one-time-secrets.test.ts',
]

/** Every migration's source, in a stable order: what a migrated template database is made of. */
function migrationSources(): string[] {
  const files = (readdirSync(path.join(import.meta.dirname, 'src'), { recursive: true }) as string[])
    .filter((file) => /(^|\/)migrations\/[\w-]+\.ts$/.test(file) && !file.endsWith('.test.ts'))
    .sort()
  return files.map((file) => `${file}\n${readFileSync(path.join(import.meta.dirname, 'src', file), 'utf8')}`)
}

/**
 * A PostgreSQL database migrated by this build's `migrate` command, which every test app's
 * database is copied from (CREATE DATABASE ... TEMPLATE: tens of milliseconds, against a quarter
 * of a second to migrate an empty one). Named by a hash of the migrations, so a run after a
 * change to them makes its own; made under a temporary name and renamed, so two runs at once
 * never copy a half-made one. The migrations themselves are tested on empty databases.
 */
async function migratedTemplate(serverBuild: string): Promise<string> {
  const name = `ups_template_${createHash('sha256').update(migrationSources().join('\n')).digest('hex').slice(0, 16)}`
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (exists.rowCount) return name
    const making = `${name}_${process.pid}`
    await admin.query(`create database ${making}`)
    const url = new URL(postgresUrl)
    url.pathname = `/${making}`
    const cwd = mkdtempSync(path.join(tmpdir(), 'ups-template-'))
    try {
      execFileSync(process.execPath, [path.join(serverBuild, 'cli', 'migrate.js')], { cwd, stdio: 'pipe', env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: cwd, DATABASE_URL: url.toString() } })
      await admin.query(`alter database ${making} rename to ${name}`)
    } catch (error) {
      await admin.query(`drop database if exists ${making}`)
      // Another run made it first: use theirs.
      if ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount) return name
      throw error
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
    return name
  } finally {
    await admin.end()
  }
}

interface Available {
  redis: boolean
  chromium: boolean
  replica: boolean
  haproxy: boolean
  /** Where the server was built for this run. */
  serverBuild: string
  /** The migrated PostgreSQL database test apps' databases are copied from ('' without PostgreSQL). */
  postgresTemplate: string
}

/**
 * Builds the server once for the run (scripts/build.mjs, a second or two): tests that start server
 * processes run the build, as `npm start` does, instead of compiling the sources through tsx in
 * every process. Removed when the run ends.
 */
function buildServerForTests(): string {
  const out = path.join(import.meta.dirname, `.build-tests-${process.pid}`)
  execFileSync(process.execPath, [path.join(import.meta.dirname, 'scripts/build.mjs'), out], { stdio: 'pipe' })
  process.once('exit', () => rmSync(out, { recursive: true, force: true }))
  return out
}

type ProjectName = 'sqlite' | 'postgres' | 'pgbouncer' | 'sqlite-plain' | 'postgres-plain'

function project(name: ProjectName, include: string[], available: Available, exclude: string[] = []): TestProjectInlineConfiguration {
  const provide = {
    database: name.startsWith('sqlite') ? ('sqlite' as const) : ('postgres' as const),
    postgresUrl,
    postgresTemplate: available.postgresTemplate,
    poolerUrl: name === 'pgbouncer' ? pgbouncerUrl : '',
    // The -plain projects run the data-path tests with the speed layer off (FAST_PATH=off), so
    // the plain Kysely path stays correct on both databases.
    fastPath: !name.endsWith('-plain'),
    redisUrl: available.redis ? redisUrl : '',
    chromiumPath: available.chromium ? chromiumPath : '',
    replicaPrimaryUrl: available.replica ? replicaPrimaryUrl : '',
    replicaUrl: available.replica ? replicaUrl : '',
    haproxyPath: available.haproxy ? haproxyPath : '',
    serverBundle: path.join(available.serverBuild, 'server.js'),
  }
  return { extends: true, test: { name, include, exclude: [...configDefaults.exclude, ...exclude], provide } }
}

export default defineConfig(async () => {
  const [postgres, pgbouncer, redis, replica] = await Promise.all([postgresReachable(), postgresReachable(pgbouncerUrl), redisReachable(), standbyReachable(replicaUrl).then(async (standby) => standby && (await postgresReachable(replicaPrimaryUrl)))])
  if (!postgres) unreachable('PostgreSQL', postgresUrl, 'TEST_DATABASE_URL')
  if (postgres && !pgbouncer) unreachable('PgBouncer', pgbouncerUrl, 'TEST_PGBOUNCER_URL')
  if (!redis) unreachable('Redis', redisUrl, 'TEST_REDIS_URL')
  if (postgres && !replica) unreachable('A PostgreSQL primary and its standby', `${replicaPrimaryUrl} and ${replicaUrl}`, 'TEST_REPLICA_PRIMARY_URL and TEST_REPLICA_URL (bash scripts/test-services.sh makes them)')
  const haproxy = existsSync(haproxyPath)
  if (!haproxy) unreachable('HAProxy', haproxyPath, 'TEST_HAPROXY (apt-get install -y haproxy)')
  const chromium = existsSync(chromiumPath)
  if (!chromium) unreachable('Chromium', chromiumPath, 'TEST_CHROMIUM (apt-get install -y chromium)')
  const serverBuild = buildServerForTests()
  const available = { redis, chromium, replica, haproxy, serverBuild, postgresTemplate: postgres ? await migratedTemplate(serverBuild) : '' }
  return {
    test: {
      pool: 'forks' as const,
      // One test file more than the cores (Vitest's default on 2 cores is one file): files spend
      // most of their time waiting on databases, argon2's thread pool, Chromium and child
      // processes. On 2 cores, three files at once took the suite from 483 s to 420 s (four: 397 s,
      // with each file a quarter slower; in CI, four took the Node 20 projects from 382 s to 397).
      maxWorkers: availableParallelism() + 1,
      // A worker keeps its loaded modules from one test file to the next instead of importing
      // the app again for each (that import was a fifth of the suite). Each file still builds
      // its own app on its own database; spies are restored after every test.
      isolate: false,
      restoreMocks: true,
      // Deadlines, not delays: a test ends as soon as its work is done, and these only decide when a
      // test that never finishes is failed. A busy machine takes several times what an idle one does
      // (scripts/test-under-load.sh runs the suite beside two busy processes a core).
      testTimeout: 120_000,
      hookTimeout: 180_000,
      projects: [
        project('sqlite', ['test/**/*.test.ts', 'src/**/*.test.ts'], available),
        ...(postgres ? [project('postgres', databaseTests, available, sqliteOnlyTests)] : []),
        ...(postgres && pgbouncer ? [project('pgbouncer', pooledTests, available)] : []),
        project('sqlite-plain', pooledTests, available),
        ...(postgres ? [project('postgres-plain', pooledTests, available)] : []),
      ],
    },
  }
})
