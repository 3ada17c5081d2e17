// npm run bench [-- --db sqlite|postgres|all] [--quick] [--rounds N] [--duration S]
//
// Starts the built service on a seeded database and drives it with autocannon (keep-alive,
// 50 connections, no pipelining), side by side with two references that run the same SQL and
// send the same responses: a bare node:http server and a minimal Fastify server (the framework's
// ceiling). Reports req/s, p50/p99 latency and peak RSS per scenario, our throughput as a ratio
// of each reference's (medians of alternating rounds, with the spread), a mixed load, logins
// under load, and how the main reads behave at 10k and at 1M rows (OFFSET and cursor pages).
// Figures go to bench/results/.
import type { ChildProcess } from 'node:child_process'
import { execFileSync, spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isDeepStrictEqual, parseArgs } from 'node:util'

import pg from 'pg'
import sharp from 'sharp'

import { loadedPackages } from '../scripts/loaded-at-start/packages.mjs'
import { createDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import SqliteDatabase from '../src/db/sqlite-driver.js'
import { PASSWORD_HASH_PARAMETERS } from '../src/features/users/index.js'
import { benchAbuse } from './lib/abuse.js'
import { benchComments } from './lib/comments.js'
import { benchContent, CONTENT_BENCH_SCHEMA } from './lib/content.js'
import type { EventsBenchTools } from './lib/events.js'
import { benchStreamFanOut, benchWebhooks } from './lib/events.js'
import { benchExport } from './lib/export.js'
import { benchFiles } from './lib/files.js'
import { benchLists } from './lib/lists.js'
import { median } from './lib/percentile.mjs'
import { benchReplicas } from './lib/replicas.js'
import { benchSearch } from './lib/search.js'
import type { SeedTarget } from './lib/seed.js'
import { BENCH_PASSWORD, makeSuperuser, NEEDLE, needlePositions, seed } from './lib/seed.js'
import type { StartupBenchResult } from './lib/startup.js'
import { benchStartup } from './lib/startup.js'
import { benchWriteCosts } from './lib/write-costs.js'

const root = path.resolve(import.meta.dirname, '..')
const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    'scale-rows': { type: 'string' },
    // `--only startup`: the cold-start lines alone (run it under each Node.js to compare them).
    // `--only soak`: the mixed load on one process for --soak-seconds (600), its memory sampled.
    // `--only events`: webhook deliveries and the event stream's fan-out alone.
    // `--only orgs`: an organization's routes (the membership check, its members) beside reading a user.
    // `--only posts`: reading posts (a list page, one post) beside the bare and minimal Fastify servers.
    // `--only comments`: one post's comments (a page, a deep page, one, replies) and reaction PUTs beside a get of the post, at 10,000 and 1,000,000 comments.
    // `--only search`: ranked search (GET /api/v2/search) beside the substring search it replaces and the newest-first page, and a post's write with its index entry, at 10,000 and 1,000,000 posts.
    // `--only write-costs`: what the search index adds to a post's create, and a revision to an edit of its text, in one process, switched on and off in alternating rounds.
    // `--only content`: sorted, expanded and filtered v2 post pages beside the newest-first page, and a 10 KB post written as plain text and as Markdown, at 10,000 and 1,000,000 posts.
    // `--only visibility`: the v2 post list's first page for every kind of caller at 10,000 and 1,000,000 posts, beside a get and the same-work reference, with plans.
    // `--only abuse`: password logins and sign-ups with each abuse check on against all off.
    // `--only replicas` (PostgreSQL): the hot standby at BENCH_REPLICA_URL (default 127.0.0.1:5433) of the primary at BENCH_POSTGRES_URL (default 127.0.0.1:5434), the pair scripts/test-services.sh makes, under a mixed load, a writer reading back its writes, and the cost of choosing a target.
    // `--only export`: a data export of a user with 1,000 posts and of one with 100,000: the time, the ZIP and the service's peak memory.
    // `--only files`: upload throughput through the service against a plain fs write, and an image variant's first and cached latency.
    only: { type: 'string' },
    'soak-seconds': { type: 'string' },
    // `--only visibility` and `--only comments`: the numbers of posts (of comments) to measure at (default 10000,1000000; 10000 with --quick).
    'list-sizes': { type: 'string' },
    // `--only visibility --baseline DIR`: the reference is the service built in DIR (an earlier
    // checkout, `npm run build` there, its migrate.ts returning early when BENCH_SKIP_MIGRATE=1),
    // serving this build's database in the same alternating rounds: before and after, measured
    // at once. Its answers lack what was added since, so they are not compared.
    baseline: { type: 'string' },
  },
})
const ONLY_MODES = ['startup', 'soak', 'events', 'orgs', 'posts', 'visibility', 'comments', 'content', 'search', 'write-costs', 'files', 'abuse', 'export', 'replicas']
if (args.only !== undefined && !ONLY_MODES.includes(args.only)) throw new Error(`--only takes ${ONLY_MODES.join(', ')}, got ${args.only}`)
const SOAK_SECONDS = Number(args['soak-seconds'] ?? 600)
const quick = args.quick ?? false
const ROUNDS = Math.max(3, Number(args.rounds ?? 3))
const DURATION = Number(args.duration ?? (quick ? 2 : 5))
const WARMUP = quick ? 1 : 2
const BASE_ROWS = 10_000
const SCALE_ROWS = Number(args['scale-rows'] ?? 1_000_000)
const CONNECTIONS = 50
// `--only replicas` seeds on the primary whose standby it reads (scripts/test-services.sh's clusters scaleout and replica).
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? (args.only === 'replicas' ? 'postgres://postgres@127.0.0.1:5434/postgres' : 'postgres://postgres@127.0.0.1:5432/postgres')
const OUR_PORT = 8400
const BARE_PORT = 8401
const NO_LIMITS_PORT = 8402
const WITH_LIMITS_PORT = 8403
const METRICS_PORT = 8404
const CEILING_PORT = 8405
const FRESH_OUR_PORT = 8406
const STARTUP_PORT = 8407

type Dialect = 'sqlite' | 'postgres'
const dialects: Dialect[] = args.db === 'all' ? ['sqlite', 'postgres'] : [args.db as Dialect]
for (const dialect of dialects) {
  if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`--db must be sqlite, postgres or all, got ${args.db}`)
}

// Two or more cores: the server gets core 0, the load generator core 1, so they do not
// steal time from each other and runs are comparable.
const pinning = os.cpus().length >= 2 && hasTaskset()
function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true'])
    return true
  } catch {
    return false
  }
}
const pinned = (cpu: number, command: string, commandArgs: string[]): [string, string[]] =>
  pinning ? ['taskset', ['-c', String(cpu), command, ...commandArgs]] : [command, commandArgs]

interface RequestSpec {
  path: string
  method?: string
  headers?: Record<string, string>
  /** In a body, "{n}" becomes a number unique to the request; in a path, ":id" a random user id. */
  body?: unknown
  weight?: number
  /** In a mix: what the request is ("read", "write", "login"); each kind's latency is reported too. */
  kind?: string
}

interface LoadSpec extends RequestSpec {
  url: string
  randomUserId?: boolean
  maxUserId?: number
  /** Weighted requests, one chosen at random for each request sent (bench/lib/load-worker.mjs). */
  mix?: RequestSpec[]
  connections: number
  duration: number
}

interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  non2xx: number
  /** The answers that are not 2xx, by status. */
  statusCodes?: Record<string, number>
  errors: number
  timeouts: number
  peakRssMb: number
  /**
   * The server process's CPU time (user + system, all its threads) over the load, divided by
   * the requests it answered. Steadier than req/s on a shared machine: a neighbour that takes
   * the core away lowers req/s but not the CPU a request needs. Undefined without /proc.
   */
  cpuMicrosPerRequest?: number
  /** PostgreSQL's CPU time over the load (every server process of it), divided by the requests answered. */
  databaseCpuMicrosPerRequest?: number
  /** A mix whose requests name their kind: each kind's own count and latency (bench/lib/load-worker.mjs). */
  byKind?: Record<string, KindLatency>
  /** Every response of one load (not kept by summarise). */
  total?: number
}

interface KindLatency {
  count: number
  p50: number
  p99: number
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
    return kb / 1024
  } catch {
    return 0
  }
}

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** User + system CPU time of a process so far, in µs (/proc/<pid>/stat fields 14 and 15). */
function cpuMicros(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/**
 * The CPU time of every PostgreSQL server process on this machine so far, in µs (its backends,
 * which come and go with the pools, are counted while they live): what the database spends,
 * beside what the service does. Zero where there is no such process.
 */
function postgresCpuMicros(): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (!stat.includes('(postgres)')) continue
      const fields = stat.split(') ')[1]?.split(' ') ?? []
      total += ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_SECOND
    } catch {
      // The process ended meanwhile.
    }
  }
  return total
}

/** Runs autocannon in a pinned child process while sampling the server's RSS and CPU time (and PostgreSQL's). */
async function load(spec: LoadSpec, serverPid: number): Promise<LoadResult> {
  const [command, commandArgs] = pinned(1, process.execPath, [path.join(root, 'bench/lib/load-worker.mjs'), JSON.stringify(spec)])
  const cpuBefore = cpuMicros(serverPid)
  const databaseCpuBefore = postgresCpuMicros()
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  let peak = rssMb(serverPid)
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serverPid))), 100)
  await new Promise((resolve) => child.on('exit', resolve))
  clearInterval(sampler)
  const cpuAfter = cpuMicros(serverPid)
  const databaseCpu = postgresCpuMicros() - databaseCpuBefore
  const result = JSON.parse(output) as Omit<LoadResult, 'peakRssMb'> & { total: number }
  const total = result.total
  const cpuMicrosPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && total > 0 ? (cpuAfter - cpuBefore) / total : undefined
  const databaseCpuMicrosPerRequest = databaseCpu > 0 && total > 0 ? databaseCpu / total : undefined
  return { ...result, peakRssMb: Math.round(Math.max(peak, rssMb(serverPid))), cpuMicrosPerRequest, databaseCpuMicrosPerRequest }
}

function summarise(results: LoadResult[]): LoadResult {
  return {
    requestsPerSecond: Math.round(median(results.map((r) => r.requestsPerSecond))),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    statusCodes: results.reduce<Record<string, number>>((sum, r) => {
      for (const [code, count] of Object.entries(r.statusCodes ?? {})) sum[code] = (sum[code] ?? 0) + count
      return sum
    }, {}),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    timeouts: 0,
    peakRssMb: Math.max(...results.map((r) => r.peakRssMb)),
    cpuMicrosPerRequest: results.every((r) => r.cpuMicrosPerRequest !== undefined) ? median(results.map((r) => r.cpuMicrosPerRequest as number)) : undefined,
    databaseCpuMicrosPerRequest: results.every((r) => r.databaseCpuMicrosPerRequest !== undefined) ? median(results.map((r) => r.databaseCpuMicrosPerRequest as number)) : undefined,
    ...(results[0]?.byKind ? { byKind: summariseKinds(results) } : {}),
  }
}

/** Each kind's latency over the rounds: the medians of its p50 and p99, and every request counted. */
function summariseKinds(results: LoadResult[]): Record<string, KindLatency> {
  const kinds = new Set(results.flatMap((r) => Object.keys(r.byKind ?? {})))
  return Object.fromEntries(
    [...kinds].map((kind) => {
      const rounds = results.map((r) => r.byKind?.[kind]).filter((latency): latency is KindLatency => latency !== undefined)
      return [kind, { count: rounds.reduce((sum, r) => sum + r.count, 0), p50: median(rounds.map((r) => r.p50)), p99: median(rounds.map((r) => r.p99)) }]
    }),
  )
}

const kindsLine = (byKind: Record<string, KindLatency>) =>
  Object.entries(byKind)
    .map(([kind, latency]) => `${kind}s (${fmt(latency.count)}) p50 ${latency.p50} ms, p99 ${latency.p99} ms`)
    .join('; ')

interface Server {
  process: ChildProcess
  url: string
  stop(): Promise<void>
}

async function waitFor(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${log()}`)
    try {
      await fetch(url)
      return
    } catch {
      await sleep(100)
    }
  }
  throw new Error(`server did not answer at ${url}:\n${log()}`)
}

// Servers still running when the benchmark ends, a failure included, are stopped with it.
const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

async function startProcess(
  script: string,
  port: number,
  env: Record<string, string>,
  readyPath: string,
  nodeFlags: string[] = [],
): Promise<Server> {
  const [command, commandArgs] = pinned(0, process.execPath, [...nodeFlags, script])
  const child = spawn(command, commandArgs, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  child.on('exit', () => running.delete(child))
  let log = ''
  child.stdout?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)))
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)))
  const url = `http://127.0.0.1:${port}`
  await waitFor(url + readyPath, child, () => log)
  return {
    process: child,
    url,
    async stop() {
      child.kill('SIGTERM')
      if (child.exitCode === null) await new Promise((resolve) => child.on('exit', resolve))
    },
  }
}

// The access tokens' key (EdDSA, the default algorithm), given to the service as a deployment
// with its key in a secret manager would, and its public half to the references, which verify
// the tokens the service signed as another service would from its JWKS.
const ACCESS_TOKEN_KEY = generateKeyPairSync('ed25519')
const ACCESS_TOKEN_PRIVATE_PEM = ACCESS_TOKEN_KEY.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const ACCESS_TOKEN_PUBLIC_PEM = ACCESS_TOKEN_KEY.publicKey.export({ type: 'spki', format: 'pem' }).toString()

function serviceEnv(target: SeedTarget, logLevel = 'warn', extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
    JWT_PRIVATE_KEY: ACCESS_TOKEN_PRIVATE_PEM,
    DATA_DIR: target.dataDir,
    ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}),
    // The benchmark logs in thousands of times a minute from one address, and reads far more:
    // limits high enough never to refuse, so what is measured is the cost of counting.
    LOGIN_RATE_LIMIT: '1000000',
    ANONYMOUS_RATE_LIMIT: '1000000000/60',
    DEFAULT_RATE_LIMIT: '1000000000/60',
    SIGNUP_RATE_LIMIT: '1000000000/60',
    MAIL_TRANSPORT: 'log',
    ...extra,
  }
}

// As `npm start` runs it (see package.json): an explicit heap limit keeps V8 from growing the
// heap towards its default of a quarter of the machine's memory before collecting, and 4 MB
// semi-spaces (V8's default here is 16) keep the young generation 24 MB smaller.
const SERVICE_NODE_FLAGS = ['--max-old-space-size=1024', '--max-semi-space-size=4']
const startService = (target: SeedTarget, logLevel?: string, port = OUR_PORT, extra: Record<string, string> = {}) =>
  startProcess(path.join(root, 'dist/server.js'), port, serviceEnv(target, logLevel, extra), '/health', SERVICE_NODE_FLAGS)

const referenceEnv = (target: SeedTarget) => ({
  BENCH_DIALECT: target.dialect,
  DATA_DIR: target.dataDir,
  BENCH_ACCESS_TOKEN_PUBLIC_KEY: ACCESS_TOKEN_PUBLIC_PEM,
  BENCH_HASH_PARAMETERS: JSON.stringify(PASSWORD_HASH_PARAMETERS),
  ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}),
})

/** node:http and the driver: the least that answering these routes takes. */
const startBare = (target: SeedTarget) =>
  startProcess(path.join(root, 'bench/bare/node-http-server.mjs'), BARE_PORT, referenceEnv(target), '/services/v1/users/1')

/** A minimal Fastify server over the same data module: the framework's ceiling. */
const startCeiling = (target: SeedTarget) =>
  startProcess(path.join(root, 'bench/bare/fastify-server.mjs'), CEILING_PORT, referenceEnv(target), '/services/v1/users/1')

/** Runs statements as the administrator of the benchmark's PostgreSQL server. */
async function asPostgresAdmin(...statements: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  try {
    for (const statement of statements) await admin.query(statement)
  } finally {
    await admin.end()
  }
}

/**
 * Empty storage of the dialect: a new data directory `bench/.data/<directory>`, and for
 * PostgreSQL a new database of that name (either one left by an earlier run is replaced);
 * `remove` drops both.
 */
async function emptyStorage(dialect: Dialect, directory: string, databaseName: string): Promise<{ target: SeedTarget; remove(): Promise<void> }> {
  const dataDir = path.join(root, 'bench/.data', directory)
  rmSync(dataDir, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true })
  if (dialect === 'sqlite') return { target: { dialect, dataDir }, remove: async () => removeDir() }
  await asPostgresAdmin(`drop database if exists ${databaseName} with (force)`, `create database ${databaseName}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${databaseName}`
  return {
    target: { dialect, dataDir, databaseUrl: url.toString() },
    async remove() {
      await asPostgresAdmin(`drop database if exists ${databaseName} with (force)`)
      removeDir()
    },
  }
}

/** The benchmark's storage, migrated. */
async function prepareStorage(dialect: Dialect): Promise<SeedTarget> {
  const { target } = await emptyStorage(dialect, dialect, 'ups_bench')
  const database = await createDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
  await migrateToLatest(database.db)
  await database.close()
  return target
}

/** Drops the benchmark's PostgreSQL database (the data directory stays, for a look afterwards). */
async function dropStorage(target: SeedTarget): Promise<void> {
  if (target.dialect === 'postgres') await asPostgresAdmin('drop database if exists ups_bench with (force)')
}

async function login(url: string, username = 'u1'): Promise<string> {
  const response = await fetch(`${url}/services/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: BENCH_PASSWORD }),
  })
  if (!response.ok) throw new Error(`bench login failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

interface Scenario {
  name: string
  spec: Omit<LoadSpec, 'url' | 'connections' | 'duration'>
  /** Measured beside the bare and the minimal Fastify servers, which serve it too. */
  references: boolean
}

const v1 = '/services/v1'

function scenarios(token: string, rows: number): Scenario[] {
  const auth = { authorization: `Bearer ${token}` }
  const json = { 'content-type': 'application/json' }
  return [
    { name: 'get-user', spec: { path: `${v1}/users/:id`, randomUserId: true, maxUserId: rows }, references: true },
    { name: 'list-users', spec: { path: `${v1}/users/?page=1&items_per_page=10` }, references: true },
    { name: 'search-users', spec: { path: `${v1}/users/search?name=${NEEDLE}` }, references: true },
    { name: 'list-posts', spec: { path: `${v1}/posts/?page=1&limit=10` }, references: true },
    { name: 'get-post', spec: { path: `${v1}/posts/:id`, randomUserId: true, maxUserId: rows }, references: true },
    { name: 'me', spec: { path: `${v1}/users/me`, headers: auth }, references: true },
    {
      name: 'create-post',
      spec: { path: `${v1}/posts/`, method: 'POST', headers: { ...auth, ...json }, body: { title: 'Benchmark post', text: 'Written by autocannon.' } },
      references: true,
    },
    {
      name: 'create-user',
      spec: {
        path: `${v1}/users/`,
        method: 'POST',
        headers: json,
        body: { name: 'Bench Newcomer', username: 'new_{n}', email: 'new_{n}@bench.example.com', password: 'a long bench password {n}' },
      },
      references: true,
    },
    { name: 'login', spec: { path: `${v1}/login`, method: 'POST', headers: json, body: { username: 'u1', password: BENCH_PASSWORD } }, references: false },
    { name: 'mixed', spec: mixedSpec(auth, rows), references: false },
  ]
}

/** 90% reads, 8% creates and updates, 2% logins, as one client population would send them. */
function mixedSpec(auth: Record<string, string>, rows: number): Scenario['spec'] {
  const json = { 'content-type': 'application/json' }
  return {
    path: `${v1}/users/:id`,
    maxUserId: rows,
    mix: [
      { weight: 40, kind: 'read', path: `${v1}/users/:id` },
      { weight: 15, kind: 'read', path: `${v1}/users/?page=1&items_per_page=10` },
      { weight: 20, kind: 'read', path: `${v1}/posts/?page=1&limit=10` },
      { weight: 5, kind: 'read', path: `${v1}/users/search?name=${NEEDLE}` },
      { weight: 10, kind: 'read', path: `${v1}/users/me`, headers: auth },
      { weight: 5, kind: 'write', path: `${v1}/posts/`, method: 'POST', headers: { ...auth, ...json }, body: { title: 'Mixed post', text: 'Written by the mix {n}.' } },
      { weight: 3, kind: 'write', path: `${v1}/users/1`, method: 'PATCH', headers: { ...auth, ...json }, body: { name: 'Bench {n}' } },
      { weight: 2, kind: 'login', path: `${v1}/login`, method: 'POST', headers: json, body: { username: 'u1', password: BENCH_PASSWORD } },
    ],
  }
}

interface Measured {
  result: LoadResult
  /** Our req/s ÷ this server's, per round (paired rounds). */
  roundRatios: number[]
}

interface ScenarioResult {
  name: string
  ours: LoadResult
  bare?: LoadResult
  ceiling?: LoadResult
  ratio?: number
  ceilingRatio?: number
  /** The reference's CPU per request ÷ ours (medians): the throughput ratio on a core of its own. */
  cpuRatio?: number
  ceilingCpuRatio?: number
  /** Lowest and highest per-round ratios. */
  ratioSpread?: [number, number]
  ceilingRatioSpread?: [number, number]
}

async function measure(server: Server, spec: Scenario['spec'], rounds: number, duration = DURATION): Promise<LoadResult> {
  const pid = server.process.pid as number
  await load({ ...spec, url: server.url, connections: CONNECTIONS, duration: WARMUP }, pid)
  const results: LoadResult[] = []
  for (let round = 0; round < rounds; round++) {
    results.push(await load({ ...spec, url: server.url, connections: CONNECTIONS, duration }, pid))
  }
  return summarise(results)
}

// Headers that say nothing about the work done: the clock, and how the connection is kept.
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** One request of a scenario as the load sends it (":id" is user 1, "{n}" a fresh number). */
async function sampleResponse(server: Server, spec: Scenario['spec'], unique: string) {
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body).replaceAll('{n}', unique)
  const response = await fetch(server.url + spec.path.replace(':id', '1'), { method: spec.method ?? 'GET', headers: spec.headers, body })
  const headers = [...response.headers.keys()].filter((name) => !TRANSPORT_HEADERS.has(name)).sort()
  return { status: response.status, headers, body: (await response.json()) as unknown }
}

/**
 * The references must answer as the service does, or the ratios compare different work: the
 * same status, the same headers and the same body (keys in any order; for a write, which makes
 * a new row on each server, the same keys). Fails the benchmark otherwise.
 */
async function checkSameResponses(servers: Server[], name: string, spec: Scenario['spec']): Promise<void> {
  const [ours, ...references] = await Promise.all(servers.map((server, index) => sampleResponse(server, spec, `c${index}x${Date.now() % 1e8}`)))
  const shape = (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : value)
  for (const [index, reference] of references.entries()) {
    const sameBody = spec.method === 'POST' ? isDeepStrictEqual(shape(reference.body), shape(ours?.body)) : isDeepStrictEqual(reference.body, ours?.body)
    if (reference.status !== ours?.status || !isDeepStrictEqual(reference.headers, ours.headers) || !sameBody) {
      throw new Error(
        `${name}: ${servers[index + 1]?.url} does not answer as the service does\n  service:   ${JSON.stringify(ours)}\n  reference: ${JSON.stringify(reference)}`,
      )
    }
  }
}

/** Starts one process of a server; each round of a comparison gets fresh ones. */
type Starter = () => Promise<Server>

/**
 * The servers in alternating rounds (the order rotates each round so none always goes first),
 * each round on freshly started processes, warmed up first; medians per server, and each one's
 * per-round ratio of the first's. Fresh processes, because where a process's code and heap land
 * in memory moves its speed: three processes of one build measured 28.2, 28.4 and 31.3 µs of CPU
 * per get-user, and 31.4, 31.2 and 30.6 with address-space randomisation off (`setarch -R`), so
 * one process per server would let that draw decide a ratio (docs/performance.md).
 */
async function measureTogether(starters: Starter[], spec: Scenario['spec'], rounds = ROUNDS, beforeFirstRound?: (servers: Server[]) => Promise<void>): Promise<Measured[]> {
  const perServer: LoadResult[][] = starters.map(() => [])
  for (let round = 0; round < rounds; round++) {
    const servers: Server[] = []
    try {
      for (const start of starters) servers.push(await start())
      if (round === 0) await beforeFirstRound?.(servers)
      for (const server of servers) await load({ ...spec, url: server.url, connections: CONNECTIONS, duration: WARMUP }, server.process.pid as number)
      for (let k = 0; k < servers.length; k++) {
        const index = (round + k) % servers.length
        const server = servers[index] as Server
        perServer[index]?.push(await load({ ...spec, url: server.url, connections: CONNECTIONS, duration: DURATION }, server.process.pid as number))
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()))
    }
  }
  const ours = perServer[0] as LoadResult[]
  return perServer.map((results) => ({
    result: summarise(results),
    roundRatios: results.map((result, round) => (ours[round] as LoadResult).requestsPerSecond / result.requestsPerSecond),
  }))
}

async function measureSideBySide(ours: Starter, other: Starter, spec: Scenario['spec'], rounds = ROUNDS): Promise<[LoadResult, LoadResult]> {
  const [a, b] = await measureTogether([ours, other], spec, rounds)
  return [(a as Measured).result, (b as Measured).result]
}

const spread = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)]

const cpuRatio = (ours: LoadResult, reference: LoadResult) =>
  ours.cpuMicrosPerRequest && reference.cpuMicrosPerRequest ? reference.cpuMicrosPerRequest / ours.cpuMicrosPerRequest : undefined

interface ScaleRow {
  name: string
  small: LoadResult
  large: LoadResult
  slowdown: number
}

/** The cursor that continues after `key` (src/api/common/page-envelope.ts writes them so). */
const cursorAfter = (key: number) => Buffer.from(`k${key}`).toString('base64url')

function scaleScenarios(rows: number, superuserToken: string): Scenario[] {
  const deepPage = Math.floor(rows / 2 / 10)
  const v2 = '/api/v2'
  const admin = { authorization: `Bearer ${superuserToken}` }
  return [
    { name: 'get-user', spec: { path: `${v1}/users/:id`, randomUserId: true, maxUserId: rows }, references: false },
    { name: 'list-users page 1', spec: { path: `${v1}/users/?page=1&items_per_page=10` }, references: false },
    { name: 'list-users deep OFFSET page (v1)', spec: { path: `${v1}/users/?page=${deepPage}&items_per_page=10` }, references: false },
    { name: 'v2 list-users page 1', spec: { path: `${v2}/users/?limit=10` }, references: false },
    { name: 'v2 list-users deep cursor page', spec: { path: `${v2}/users/?limit=10&cursor=${cursorAfter(deepPage * 10)}` }, references: false },
    { name: 'v2 list-posts deep cursor page', spec: { path: `${v2}/posts/?limit=10&cursor=${cursorAfter(rows - deepPage * 10)}` }, references: false },
    { name: 'search-users', spec: { path: `${v1}/users/search?name=${NEEDLE}` }, references: false },
    { name: 'list-posts', spec: { path: `${v1}/posts/?page=1&limit=10` }, references: false },
    // The admin console's users table and overview (u1 is made a superuser for these).
    { name: 'admin users by username', spec: { path: `${v2}/admin/users?sort=username&limit=20`, headers: admin }, references: false },
    { name: 'admin users by email, descending', spec: { path: `${v2}/admin/users?sort=-email&limit=20`, headers: admin }, references: false },
    { name: 'admin users search', spec: { path: `${v2}/admin/users?search=${NEEDLE}&limit=20`, headers: admin }, references: false },
    { name: 'admin users by email address', spec: { path: `${v2}/admin/users?search=u7@bench.example&status=all`, headers: admin }, references: false },
    { name: 'admin overview', spec: { path: `${v2}/admin/overview`, headers: admin }, references: false },
  ]
}

async function versions(target: SeedTarget): Promise<{ sqlite: string; postgres?: string }> {
  const sqlite = new SqliteDatabase(':memory:')
  const sqliteVersion = (sqlite.prepare('select sqlite_version() as v').get() as { v: string }).v
  sqlite.close()
  if (target.dialect !== 'postgres') return { sqlite: sqliteVersion }
  const client = new pg.Client({ connectionString: target.databaseUrl })
  await client.connect()
  const { rows } = await client.query<{ server_version: string }>('show server_version')
  await client.end()
  return { sqlite: sqliteVersion, postgres: rows[0]?.server_version }
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** Cold start on the seeded storage and on fresh storage, beside the references started the same way. */
async function benchStartupOf(target: SeedTarget): Promise<StartupBenchResult> {
  process.stdout.write('   cold start ... ')
  const serviceCommand = (storage: SeedTarget) => ({ script: path.join(root, 'dist/server.js'), nodeFlags: SERVICE_NODE_FLAGS, env: serviceEnv(storage) })
  let freshCount = 0
  const result = await benchStartup({
    existing: serviceCommand(target),
    async fresh() {
      const storage = await emptyStorage(target.dialect, `fresh-${freshCount}`, `ups_bench_fresh_${freshCount++}`)
      return { command: serviceCommand(storage.target), remove: storage.remove }
    },
    references: [
      { name: 'fastify', command: { script: path.join(root, 'bench/bare/fastify-server.mjs'), env: referenceEnv(target), firstAnswerPath: '/services/v1/users/1' } },
      { name: 'bare', command: { script: path.join(root, 'bench/bare/node-http-server.mjs'), env: referenceEnv(target), firstAnswerPath: '/services/v1/users/1' } },
    ],
    pinned,
    rounds: Math.max(5, ROUNDS),
    port: STARTUP_PORT,
    cwd: root,
  })
  console.log(
    `to /health ${fmt(result.existing.firstAnswerMs)} ms (/ready ${fmt(result.existing.readyMs ?? 0)}), fresh storage ${fmt(result.fresh.firstAnswerMs)} ms; minimal Fastify ${fmt(result.references.fastify?.firstAnswerMs ?? 0)} ms, bare ${fmt(result.references.bare?.firstAnswerMs ?? 0)} ms`,
  )
  return result
}

/** What a start holds: resident memory at start and under the mixed load, beside the minimal Fastify server; and the packages it loaded. */
interface MemoryBudget {
  /** The service's resident memory once /ready answered, and its peak and last under MEMORY_LOAD_SECONDS of the mixed load, in MB. */
  service: { atStartMb: number; peakUnderMixedMb: number; afterMixedMb: number; mixedRequestsPerSecond: number }
  /** The minimal Fastify server's at start and under its own read load, in MB. */
  fastify: { atStartMb: number; peakUnderReadsMb: number }
  /** The packages the start loaded, heaviest (bytes of it in the chunks the start loaded) first. */
  loadedAtStart: { name: string; kilobytes: number }[]
  /** What a feature's first use costs a fresh process (it loads its packages then), against its second, in ms. */
  firstUse: { name: string; firstMs: number; secondMs: number }[]
}

const MEMORY_LOAD_SECONDS = 10

/** Resident memory settles a moment after the first answers (the last modules compiled, the first GC): read it then. */
const settledRssMb = async (pid: number) => {
  await sleep(500)
  return Math.round(rssMb(pid))
}

async function benchMemoryBudget(target: SeedTarget): Promise<MemoryBudget> {
  process.stdout.write('   memory ... ')
  // The first uses need a superuser (the mail preview): user 2, so the mixed load's user 1 reads as everyone does.
  await makeSuperuser(target, 2)
  const record = path.join(os.tmpdir(), `ups-bench-loaded-${process.pid}.txt`)
  const recorded = await startProcess(path.join(root, 'dist/server.js'), OUR_PORT, { ...serviceEnv(target), NODE_OPTIONS: `--import=${path.join(root, 'scripts/loaded-at-start/record.mjs')}`, LOADED_MODULES_FILE: record }, '/ready', SERVICE_NODE_FLAGS)
  await recorded.stop()
  const loadedAtStart = loadedPackages(readFileSync(record, 'utf8'), path.join(root, 'dist')).map((entry) => ({ name: entry.name, kilobytes: Math.round(entry.bundledBytes / 1024) }))
  rmSync(record, { force: true })

  const service = await startProcess(path.join(root, 'dist/server.js'), OUR_PORT, serviceEnv(target), '/ready', SERVICE_NODE_FLAGS)
  const servicePid = service.process.pid as number
  const atStartMb = await settledRssMb(servicePid)
  const token = await login(service.url)
  const mixed = await load({ ...mixedSpec({ authorization: `Bearer ${token}` }, BASE_ROWS), url: service.url, connections: CONNECTIONS, duration: MEMORY_LOAD_SECONDS }, servicePid)
  const afterMixedMb = Math.round(rssMb(servicePid))
  // After the load, which uploads no image and renders no mail: these are still the process's first.
  const firstUse = await firstUses(service.url, { authorization: `Bearer ${await login(service.url, 'u2')}` })
  await service.stop()

  const fastify = await startCeiling(target)
  const fastifyPid = fastify.process.pid as number
  const fastifyAtStartMb = await settledRssMb(fastifyPid)
  const reads = await load({ url: fastify.url, path: '/services/v1/users/:id', randomUserId: true, maxUserId: BASE_ROWS, connections: CONNECTIONS, duration: MEMORY_LOAD_SECONDS }, fastifyPid)
  await fastify.stop()
  const budget: MemoryBudget = {
    service: { atStartMb, peakUnderMixedMb: mixed.peakRssMb, afterMixedMb, mixedRequestsPerSecond: Math.round(mixed.requestsPerSecond) },
    fastify: { atStartMb: fastifyAtStartMb, peakUnderReadsMb: reads.peakRssMb },
    loadedAtStart,
    firstUse,
  }
  console.log(`at start ${atStartMb} MB, peak under the mixed load ${mixed.peakRssMb} MB; minimal Fastify ${fastifyAtStartMb} MB, ${reads.peakRssMb} MB under reads; ${loadedAtStart.length} packages loaded at start`)
  return budget
}

/** The features whose packages a start leaves out, each used twice on a fresh process: the first pays for loading them. */
async function firstUses(url: string, auth: Record<string, string>): Promise<MemoryBudget['firstUse']> {
  const photo = await sharp({ create: { width: 1024, height: 768, channels: 3, background: '#3a6' } }).jpeg({ quality: 80 }).withExif({ IFD0: { Make: 'BenchCam' } }).toBuffer()
  const uses: [string, () => Promise<Response>][] = [
    ['an image upload (sharp, file-type)', () => {
      const body = new FormData()
      body.append('file', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg')
      return fetch(`${url}/api/v2/files`, { method: 'POST', headers: auth, body })
    }],
    ['a mail rendered (MessageFormat and every template)', () => fetch(`${url}/api/v2/admin/mail-templates/verify-email/preview?locale=de`, { headers: auth })],
  ]
  const measured: MemoryBudget['firstUse'] = []
  for (const [name, use] of uses) {
    const times: number[] = []
    for (let attempt = 0; attempt < 2; attempt++) {
      const started = performance.now()
      const answer = await use()
      await answer.arrayBuffer()
      if (!answer.ok) throw new Error(`bench: ${name} answered ${answer.status}`)
      times.push(Math.round(performance.now() - started))
    }
    measured.push({ name, firstMs: times[0]!, secondMs: times[1]! })
  }
  return measured
}

function printMemoryBudget(dialect: string, budget: MemoryBudget) {
  console.log(`
memory, ${dialect}, Node ${process.version}: resident MB`)
  console.log('| server | at start | peak under load | after the load |')
  console.log('|---|---:|---:|---:|')
  console.log(`| ours (mixed load, ${fmt(budget.service.mixedRequestsPerSecond)} req/s) | ${budget.service.atStartMb} | ${budget.service.peakUnderMixedMb} | ${budget.service.afterMixedMb} |`)
  console.log(`| minimal Fastify (reads) | ${budget.fastify.atStartMb} | ${budget.fastify.peakUnderReadsMb} | — |`)
  console.log(`loaded at start (${budget.loadedAtStart.length} packages, KB of each in the chunks loaded): ${budget.loadedAtStart.map((entry) => `${entry.name} ${entry.kilobytes}`).join(', ')}`)
  console.log(`first use on a fresh process, then the second, ms: ${budget.firstUse.map((use) => `${use.name} ${use.firstMs}, ${use.secondMs}`).join('; ')}`)
}

/** Fresh storage with the run's BASE_ROWS users and posts, needles included. */
async function seededStorage(dialect: Dialect): Promise<SeedTarget> {
  console.log(`\n== ${dialect}: seeding ${fmt(BASE_ROWS)} users and posts`)
  const target = await prepareStorage(dialect)
  await seed(target, 1, BASE_ROWS, needlePositions(BASE_ROWS))
  return target
}

async function benchDialect(dialect: Dialect) {
  const started = Date.now()
  const target = await seededStorage(dialect)
  const startup = await benchStartupOf(target)

  let ours = await startService(target)
  const token = await login(ours.url)
  const references: Starter[] = [() => startService(target, undefined, FRESH_OUR_PORT), () => startBare(target), () => startCeiling(target)]
  const results: ScenarioResult[] = []
  for (const scenario of scenarios(token, BASE_ROWS)) {
    process.stdout.write(`   ${scenario.name} ... `)
    if (scenario.references) {
      const check = (servers: Server[]) => checkSameResponses(servers, scenario.name, scenario.spec)
      const [oursMeasured, bareMeasured, ceilingMeasured] = (await measureTogether(references, scenario.spec, ROUNDS, check)) as [Measured, Measured, Measured]
      const row: ScenarioResult = {
        name: scenario.name,
        ours: oursMeasured.result,
        bare: bareMeasured.result,
        ceiling: ceilingMeasured.result,
        ratio: oursMeasured.result.requestsPerSecond / bareMeasured.result.requestsPerSecond,
        ceilingRatio: oursMeasured.result.requestsPerSecond / ceilingMeasured.result.requestsPerSecond,
        ratioSpread: spread(bareMeasured.roundRatios),
        ceilingRatioSpread: spread(ceilingMeasured.roundRatios),
        cpuRatio: cpuRatio(oursMeasured.result, bareMeasured.result),
        ceilingCpuRatio: cpuRatio(oursMeasured.result, ceilingMeasured.result),
      }
      results.push(row)
      console.log(
        `${fmt(row.ours.requestsPerSecond)} req/s; bare ${fmt(bareMeasured.result.requestsPerSecond)} (${fmt(row.ratio ?? 0, 2)}), fastify ${fmt(ceilingMeasured.result.requestsPerSecond)} (${fmt(row.ceilingRatio ?? 0, 2)}); CPU ratios ${fmt(row.cpuRatio ?? 0, 2)}, ${fmt(row.ceilingCpuRatio ?? 0, 2)}`,
      )
    } else {
      const oursResult = await measure(ours, scenario.spec, ROUNDS)
      results.push({ name: scenario.name, ours: oursResult })
      const kinds = oursResult.byKind ? ` (${kindsLine(oursResult.byKind)})` : ''
      console.log(`${fmt(oursResult.requestsPerSecond)} req/s, p99 ${oursResult.p99} ms${kinds}${oursResult.non2xx ? `, ${oursResult.non2xx} non-2xx` : ''}`)
    }
  }

  // The per-request limits hook: get-user on two fresh servers, one with REQUEST_LIMITS=off, in
  // alternating rounds (at least three, even in --quick: the difference is small and runs are noisy).
  process.stdout.write('   request-limits hook ... ')
  const [limitsOn, limitsOff] = await measureSideBySide(
    () => startService(target, undefined, WITH_LIMITS_PORT),
    () => startService(target, undefined, NO_LIMITS_PORT, { REQUEST_LIMITS: 'off' }),
    scenarios(token, BASE_ROWS)[0]!.spec,
  )
  const requestLimitsCost = 1 - limitsOn.requestsPerSecond / limitsOff.requestsPerSecond
  console.log(`get-user ${fmt(limitsOn.requestsPerSecond)} req/s with, ${fmt(limitsOff.requestsPerSecond)} without (cost ${fmt(requestLimitsCost * 100, 1)}%)`)

  // Metrics: get-user with METRICS_PORT set, against the same service without, likewise.
  process.stdout.write('   metrics ... ')
  const [metricsOn, metricsOff] = await measureSideBySide(
    () => startService(target, undefined, WITH_LIMITS_PORT, { METRICS_PORT: String(METRICS_PORT) }),
    () => startService(target, undefined, NO_LIMITS_PORT),
    scenarios(token, BASE_ROWS)[0]!.spec,
  )
  const metricsCost = 1 - metricsOn.requestsPerSecond / metricsOff.requestsPerSecond
  console.log(`get-user ${fmt(metricsOn.requestsPerSecond)} req/s with, ${fmt(metricsOff.requestsPerSecond)} without (cost ${fmt(metricsCost * 100, 1)}%)`)

  // The mixed load with the hashing threads at the lowest priority (PASSWORD_HASH_NICE=19)
  // against the default, likewise: what reads gain while logins run, and what logins lose.
  process.stdout.write('   hashing priority ... ')
  const mixedScenario = scenarios(token, BASE_ROWS).find((scenario) => scenario.name === 'mixed')!.spec
  const [niceMixed, defaultMixed] = await measureSideBySide(
    () => startService(target, undefined, WITH_LIMITS_PORT, { PASSWORD_HASH_NICE: '19' }),
    () => startService(target, undefined, NO_LIMITS_PORT),
    mixedScenario,
  )
  const hashingPriority = { nice19: niceMixed.byKind ?? {}, default: defaultMixed.byKind ?? {} }
  console.log(`mixed at nice 19: ${kindsLine(hashingPriority.nice19)}; at the default: ${kindsLine(hashingPriority.default)}`)

  // Logins at full tilt on the hashing workers while get-by-id runs: the event loop must stay free.
  process.stdout.write('   logins under load ... ')
  const [loginLoad, readsDuringLogins] = await Promise.all([
    load({ ...scenarios(token, BASE_ROWS).find((scenario) => scenario.name === 'login')!.spec, url: ours.url, connections: 16, duration: DURATION * 2 }, ours.process.pid as number),
    load(
      { path: '/services/v1/users/:id', randomUserId: true, maxUserId: BASE_ROWS, url: ours.url, connections: 10, duration: DURATION * 2 },
      ours.process.pid as number,
    ),
  ])
  console.log(`${fmt(loginLoad.requestsPerSecond)} logins/s; get-user p99 ${readsDuringLogins.p99} ms`)

  let withInfoLogging: LoadResult | undefined
  if (!quick) {
    await ours.stop()
    ours = await startService(target, 'info')
    withInfoLogging = await measure(ours, scenarios(token, BASE_ROWS)[0]!.spec, 1)
    console.log(`   get-user with LOG_LEVEL=info (one access line per request): ${fmt(withInfoLogging.requestsPerSecond)} req/s`)
  }
  await ours.stop()

  const { webhooks, eventStream } = await benchOutgoingEvents(target)

  const scale: ScaleRow[] = []
  // Full runs measure at scale; a quick run does when --scale-rows asks for it.
  if (!quick || args['scale-rows'] !== undefined) {
    await makeSuperuser(target, 1)
    const measureScale = async (rows: number) => {
      const server = await startService(target)
      const out: LoadResult[] = []
      for (const scenario of scaleScenarios(rows, await login(server.url))) out.push(await measure(server, scenario.spec, ROUNDS))
      await server.stop()
      return out
    }
    console.log(`   scale: ${fmt(BASE_ROWS)} rows`)
    const small = await measureScale(BASE_ROWS)
    console.log(`   scale: seeding up to ${fmt(SCALE_ROWS)} users and posts`)
    const seedStarted = Date.now()
    await seed(target, BASE_ROWS + 1, SCALE_ROWS, [])
    console.log(`   seeded in ${fmt((Date.now() - seedStarted) / 1000, 1)} s; measuring`)
    const large = await measureScale(SCALE_ROWS)
    scaleScenarios(SCALE_ROWS, '').forEach((scenario, index) => {
      const smallResult = small[index] as LoadResult
      const largeResult = large[index] as LoadResult
      scale.push({
        name: scenario.name,
        small: smallResult,
        large: largeResult,
        slowdown: smallResult.requestsPerSecond / largeResult.requestsPerSecond,
      })
    })
  }

  const report = {
    dialect,
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    requestLimits: { withLimits: limitsOn.requestsPerSecond, withoutLimits: limitsOff.requestsPerSecond, cost: requestLimitsCost },
    metrics: { withMetrics: metricsOn.requestsPerSecond, withoutMetrics: metricsOff.requestsPerSecond, cost: metricsCost },
    hashingPriority,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      ...(await versions(target)),
      pinning: pinning ? 'server on CPU 0, load generator on CPU 1 (taskset)' : 'none',
    },
    settings: { connections: CONNECTIONS, pipelining: 1, rounds: ROUNDS, durationSeconds: DURATION, warmupSeconds: WARMUP, rows: BASE_ROWS },
    passwordHashing: { algorithm: 'argon2id', memoryKiB: PASSWORD_HASH_PARAMETERS.memoryCost, iterations: PASSWORD_HASH_PARAMETERS.timeCost, parallelism: PASSWORD_HASH_PARAMETERS.parallelism },
    scenarios: results,
    loginsUnderLoad: { loginsPerSecond: loginLoad.requestsPerSecond, loginP99: loginLoad.p99, getUserP50: readsDuringLogins.p50, getUserP99: readsDuringLogins.p99, getUserRequestsPerSecond: readsDuringLogins.requestsPerSecond, errors: loginLoad.errors + readsDuringLogins.errors },
    withInfoLogging,
    webhooks,
    eventStream,
    startup,
    scale: scale.length ? { smallRows: BASE_ROWS, largeRows: SCALE_ROWS, rows: scale } : undefined,
    seconds: Math.round((Date.now() - started) / 1000),
  }
  await dropStorage(target)
  return report
}

type Report = Awaited<ReturnType<typeof benchDialect>>

/**
 * The minimal Fastify server's own throughput ÷ bare's in the same rounds: what a ratio to bare
 * can reach on this framework at all (a service on Fastify does at least what that server does).
 */
function ceilingOfBare(row: ScenarioResult | undefined): string {
  if (!row?.bare || !row.ceiling) return ''
  const byCpu = cpuRatio(row.ceiling, row.bare)
  return ` (minimal Fastify itself: ${fmt(row.ceiling.requestsPerSecond / row.bare.requestsPerSecond, 2)}${byCpu === undefined ? '' : `, by CPU ${fmt(byCpu, 2)}`})`
}

function check(label: string, ok: boolean, detail: string) {
  return `${ok ? 'PASS' : 'MISS'}  ${label}: ${detail}`
}

const ratioCell = (ratio: number | undefined, range: [number, number] | undefined) =>
  ratio === undefined ? '—' : `${fmt(ratio, 2)}${range ? ` (${fmt(range[0], 2)}–${fmt(range[1], 2)})` : ''}`

function printStartup(dialect: string, startup: StartupBenchResult) {
  const times = (t: StartupBenchResult['existing']) => `${fmt(t.firstAnswerMs)} (${fmt(t.spread[0])}–${fmt(t.spread[1])})`
  console.log(`\ncold start, ${dialect}, Node ${startup.node}: median of ${startup.starts} starts after one uncounted, ms from spawn to the first answer (lowest–highest)`)
  console.log('| server | storage | first answer | /ready | first start of the run |')
  console.log('|---|---|---:|---:|---:|')
  console.log(`| ours | existing | ${times(startup.existing)} | ${fmt(startup.existing.readyMs ?? 0)} | ${fmt(startup.existing.firstStartMs)} |`)
  console.log(`| ours | fresh (migrations) | ${times(startup.fresh)} | ${fmt(startup.fresh.readyMs ?? 0)} | ${fmt(startup.fresh.firstStartMs)} |`)
  for (const [name, reference] of Object.entries(startup.references)) console.log(`| ${name} | existing | ${times(reference)} | — | ${fmt(reference.firstStartMs)} |`)
  const fastify = startup.references.fastify?.firstAnswerMs ?? 0
  console.log(`ours ÷ minimal Fastify: ${fmt(startup.existing.firstAnswerMs / fastify, 2)}×`)
}

function printReport(report: Report) {
  console.log(`\n### ${report.dialect} (${report.mode}) — ${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}`)
  console.log(`medians of ${report.settings.rounds} alternating rounds of ${report.settings.durationSeconds} s; ratios are ours ÷ reference (lowest–highest round)`)
  console.log('CPU µs/req: the server process\'s CPU time over the requests it answered (ours / bare / fastify); CPU ratio: the reference\'s ÷ ours (÷ bare, ÷ fastify)')
  console.log('| scenario | req/s | p50 ms | p99 ms | peak RSS MB | bare req/s | ÷ bare | fastify req/s | ÷ fastify | CPU µs/req | CPU ratio |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const micros = (result: LoadResult | undefined) => (result?.cpuMicrosPerRequest === undefined ? '—' : fmt(result.cpuMicrosPerRequest))
  for (const row of report.scenarios) {
    const cpu = row.bare ? `${micros(row.ours)} / ${micros(row.bare)} / ${micros(row.ceiling)}` : micros(row.ours)
    const cpuRatios = row.cpuRatio === undefined ? '—' : `${fmt(row.cpuRatio, 2)}, ${fmt(row.ceilingCpuRatio ?? 0, 2)}`
    console.log(
      `| ${row.name} | ${fmt(row.ours.requestsPerSecond)} | ${row.ours.p50} | ${row.ours.p99} | ${row.ours.peakRssMb} | ${row.bare ? fmt(row.bare.requestsPerSecond) : '—'} | ${ratioCell(row.ratio, row.ratioSpread)} | ${row.ceiling ? fmt(row.ceiling.requestsPerSecond) : '—'} | ${ratioCell(row.ceilingRatio, row.ceilingRatioSpread)} | ${cpu} | ${cpuRatios} |`,
    )
  }
  printStartup(report.dialect, report.startup)
  const mixed = report.scenarios.find((row) => row.name === 'mixed')?.ours.byKind
  if (mixed) console.log(`\nmixed, by kind of request: ${kindsLine(mixed)}`)
  const priority = report.hashingPriority
  console.log(`mixed with PASSWORD_HASH_NICE=19 (fresh servers, alternating with the default): ${kindsLine(priority.nice19)}; the default in the same rounds: ${kindsLine(priority.default)}`)
  const l = report.loginsUnderLoad
  console.log(`\nlogins at full tilt: ${fmt(l.loginsPerSecond)} logins/s (argon2id m=${report.passwordHashing.memoryKiB} KiB, t=${report.passwordHashing.iterations}, p=${report.passwordHashing.parallelism}); get-user meanwhile: ${fmt(l.getUserRequestsPerSecond)} req/s, p50 ${l.getUserP50} ms, p99 ${l.getUserP99} ms`)
  const w = report.webhooks
  console.log(
    `\nwebhooks (one endpoint, post.created, ${fmt(w.writers)} connections creating posts): while the receiver answers at once, ${fmt(w.live.written)} posts at ${fmt(w.live.writesPerSecond)}/s, ${fmt(w.live.delivered)} delivered at ${fmt(w.live.deliveriesPerSecond)}/s, lag after the write p50 ${fmt(w.live.lagP50Ms)} ms, p99 ${fmt(w.live.lagP99Ms)} ms; a backlog of ${fmt(w.backlog.written)} built while it held its answers: ${fmt(w.backlog.delivered)} delivered in ${w.backlog.drainSeconds} s after the writers stopped, ${fmt(w.backlog.deliveriesPerSecond)}/s${w.duplicates ? `; ${fmt(w.duplicates)} arrived twice` : ''}`,
  )
  const e = report.eventStream
  console.log(
    `event stream: ${fmt(e.opened)} of ${fmt(e.streams)} streams open${e.refused ? ` (${fmt(e.refused)} refused)` : ''}, ${fmt(e.posts)} posts written five at a time: ${fmt(e.frames)} frames, ${fmt(e.framesPerSecond)}/s; each post on every stream after its write p50 ${e.p50Ms} ms, p99 ${e.p99Ms} ms, max ${e.maxMs} ms; RSS ${e.rssBeforeStreamsMb} MB before the streams, peak ${e.peakRssMb} MB`,
  )
  if (report.scale) {
    console.log(`\n| at scale | ${fmt(report.scale.smallRows)} rows req/s | p50 ms | ${fmt(report.scale.largeRows)} rows req/s | p50 ms | slowdown |`)
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const row of report.scale.rows) {
      console.log(`| ${row.name} | ${fmt(row.small.requestsPerSecond)} | ${row.small.p50} | ${fmt(row.large.requestsPerSecond)} | ${row.large.p50} | ${fmt(row.slowdown, 2)}× |`)
    }
  }
  const find = (name: string) => report.scenarios.find((row) => row.name === name)
  const peak = Math.max(...report.scenarios.map((row) => row.ours.peakRssMb))
  const reads = ['get-user', 'list-users', 'search-users', 'list-posts']
  const readsPeak = Math.max(...report.scenarios.filter((row) => [...reads, 'me'].includes(row.name)).map((row) => row.ours.peakRssMb))
  const large = (name: string) => report.scale?.rows.find((row) => row.name === name)?.large.requestsPerSecond ?? 0
  const lines = [
    ...reads.flatMap((name) => [
      check(`${name} >= 0.90 of bare`, (find(name)?.ratio ?? 0) >= 0.9, `${fmt(find(name)?.ratio ?? 0, 2)}${ceilingOfBare(find(name))}`),
      check(`${name} >= 0.95 of fastify`, (find(name)?.ceilingRatio ?? 0) >= 0.95, fmt(find(name)?.ceilingRatio ?? 0, 2)),
    ]),
    check('me >= 0.85 of bare (same JWT and revocation checks)', (find('me')?.ratio ?? 0) >= 0.85, `${fmt(find('me')?.ratio ?? 0, 2)}${ceilingOfBare(find('me'))}`),
    ...['create-user', 'create-post'].map((name) => check(`${name} >= 0.80 of bare`, (find(name)?.ratio ?? 0) >= 0.8, `${fmt(find(name)?.ratio ?? 0, 2)}${ceilingOfBare(find(name))}`)),
    ...[...reads, 'me', 'create-post', 'mixed'].map((name) => {
      const row = find(name)
      const references = row?.bare ? ` (bare ${row.bare.p99}, fastify ${row.ceiling?.p99})` : ''
      return check(`${name} p99 < 20 ms at ${report.settings.connections} connections`, (row?.ours.p99 ?? Infinity) < 20, `${row?.ours.p99} ms${references}`)
    }),
    ...Object.entries(find('mixed')?.ours.byKind ?? {})
      .filter(([kind]) => kind !== 'login')
      .map(([kind, latency]) => check(`mixed: its ${kind}s' p99 < 20 ms`, latency.p99 < 20, `${latency.p99} ms`)),
    check('get-user p99 < 50 ms during logins', l.getUserP99 < 50, `${l.getUserP99} ms`),
    check('peak RSS <= 150 MB during the reads and me', readsPeak <= 150, `${readsPeak} MB`),
    check('peak RSS <= 150 MB over the whole run (argon2id: 19 MiB a hash, one hash per core)', peak <= 150, `${peak} MB`),
    ...(report.scale
      ? [
          ...report.scale.rows
            .filter((row) => row.name === 'get-user' || row.name === 'list-users page 1')
            .map((row) => check(`${row.name} at ${fmt(report.scale?.largeRows ?? 0)} rows within 1.5x of ${fmt(report.scale?.smallRows ?? 0)}`, row.slowdown <= 1.5, `${fmt(row.slowdown, 2)}×`)),
          check(
            `v2 cursor page at depth ${fmt(Math.floor((report.scale.largeRows) / 20))} within 1.5x of page 1 at ${fmt(report.scale.largeRows)} rows`,
            large('v2 list-users page 1') / large('v2 list-users deep cursor page') <= 1.5,
            `${fmt(large('v2 list-users page 1') / large('v2 list-users deep cursor page'), 2)}×`,
          ),
        ]
      : []),
  ]
  console.log(`\n${lines.join('\n')}`)
}

/**
 * Outgoing events, each on a fresh service: webhook deliveries while posts are written and
 * after, then one post reaching 1,000 open streams. The webhook routes need a superuser.
 */
async function benchOutgoingEvents(target: SeedTarget) {
  await makeSuperuser(target, 1)
  const eventTools: EventsBenchTools = {
    startService: (extra) => startService(target, undefined, FRESH_OUR_PORT, extra),
    login,
    load: (spec, pid) => load(spec as unknown as LoadSpec, pid),
    pinned,
    rssMb,
    durationSeconds: DURATION,
  }
  process.stdout.write('   webhooks ... ')
  const webhooks = await benchWebhooks(eventTools)
  console.log(`${fmt(webhooks.live.deliveriesPerSecond)} deliveries/s while writing (lag p99 ${fmt(webhooks.live.lagP99Ms)} ms), a backlog at ${fmt(webhooks.backlog.deliveriesPerSecond)}/s`)
  process.stdout.write('   event stream fan-out ... ')
  const eventStream = await benchStreamFanOut(eventTools)
  console.log(`${fmt(eventStream.opened)} streams, ${fmt(eventStream.framesPerSecond)} frames/s, p99 ${eventStream.p99Ms} ms`)
  return { webhooks, eventStream }
}

/** Least-squares slope of RSS over time, in MB a minute. */
function slopePerMinute(samples: [number, number][]): number {
  const n = samples.length
  const meanT = samples.reduce((sum, [t]) => sum + t, 0) / n
  const meanR = samples.reduce((sum, [, r]) => sum + r, 0) / n
  const covariance = samples.reduce((sum, [t, r]) => sum + (t - meanT) * (r - meanR), 0)
  const variance = samples.reduce((sum, [t]) => sum + (t - meanT) ** 2, 0)
  return variance === 0 ? 0 : (covariance / variance) * 60
}

/**
 * `--only soak`: the mixed load at 50 connections on one service process for SOAK_SECONDS, its
 * RSS sampled every second; the slope is fitted from the second minute on (the first fills
 * caches and the heap's working size).
 */
async function benchSoak(target: SeedTarget) {
  const server = await startService(target)
  const token = await login(server.url)
  const pid = server.process.pid as number
  process.stdout.write(`   soak: mixed load for ${fmt(SOAK_SECONDS)} s ... `)
  const samples: [number, number][] = []
  const started = performance.now()
  const sampler = setInterval(() => samples.push([(performance.now() - started) / 1000, rssMb(pid)]), 1000)
  const result = await load({ ...mixedSpec({ authorization: `Bearer ${token}` }, BASE_ROWS), url: server.url, connections: CONNECTIONS, duration: SOAK_SECONDS }, pid)
  clearInterval(sampler)
  await server.stop()
  const settled = samples.filter(([t]) => t >= 60)
  const at = (seconds: number) => Math.round(samples.reduce((best, sample) => (Math.abs(sample[0] - seconds) < Math.abs(best[0] - seconds) ? sample : best), samples[0] ?? [0, 0])[1])
  const soak = {
    seconds: SOAK_SECONDS,
    requestsPerSecond: result.requestsPerSecond,
    p99: result.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    rssAtOneMinuteMb: at(60),
    rssAtEndMb: at(SOAK_SECONDS),
    peakRssMb: result.peakRssMb,
    slopeMbPerMinute: Math.round(slopePerMinute(settled) * 100) / 100,
    samples: samples.map(([t, r]) => [Math.round(t), Math.round(r)]),
  }
  console.log(`${fmt(soak.requestsPerSecond)} req/s; RSS ${soak.rssAtOneMinuteMb} MB at 1 min, ${soak.rssAtEndMb} MB at the end, peak ${soak.peakRssMb} MB; slope ${fmt(soak.slopeMbPerMinute, 2)} MB/min from the second minute`)
  return soak
}

/** Writes a run's report as bench/results/<dialect>-<mode>-<date>.json; gives the JSON. */
function writeReport<R extends { dialect: string; mode: string; date: string }>(report: R): string {
  mkdirSync(path.join(root, 'bench/results'), { recursive: true })
  const json = `${JSON.stringify(report, null, 2)}\n`
  writeFileSync(path.join(root, `bench/results/${report.dialect}-${report.mode}-${report.date.replace(/[:.]/g, '-')}.json`), json)
  return json
}

/**
 * The requests in alternating rounds on one process, each warmed up first; each one's medians.
 * `connections` (CONNECTIONS by default) is how many requests are in flight at once: 1 measures a
 * request's own latency, with nothing queued before it.
 */
async function alternatingRounds(server: Server, specs: Record<string, Scenario['spec']>, connections = CONNECTIONS): Promise<Record<string, LoadResult>> {
  const pid = server.process.pid as number
  const perRequest: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(specs).map((name) => [name, []]))
  for (const spec of Object.values(specs)) await load({ ...spec, url: server.url, connections, duration: WARMUP }, pid)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, spec] of Object.entries(specs)) perRequest[name]?.push(await load({ ...spec, url: server.url, connections, duration: DURATION }, pid))
  }
  return Object.fromEntries(Object.entries(perRequest).map(([name, rounds]) => [name, summarise(rounds)]))
}

/**
 * `--only orgs`: what a request on an organization costs next to reading a user by id (v2, signed
 * in, so both pay the caller's resolution): the organization with the caller's role (the check
 * every organization route makes), and its members' first page. In alternating rounds on one
 * process; the ratios are to GET /api/v2/users/{id}.
 */
async function benchOrgs(target: SeedTarget) {
  const server = await startService(target)
  try {
    const token = await login(server.url)
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const created = await fetch(`${server.url}/api/v2/orgs`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench org', slug: 'bench-org' }) })
    if (created.status !== 201 && created.status !== 409) throw new Error(`bench: creating the organization answered ${created.status}`)
    const auth = { authorization: `Bearer ${token}` }
    const results = await alternatingRounds(server, {
      'GET /api/v2/users/{id}': { path: '/api/v2/users/:id', randomUserId: true, maxUserId: BASE_ROWS, headers: auth },
      'GET /api/v2/orgs/{org}': { path: '/api/v2/orgs/bench-org', headers: auth },
      'GET /api/v2/orgs/{org}/members': { path: '/api/v2/orgs/bench-org/members?limit=10', headers: auth },
    })
    const base = results['GET /api/v2/users/{id}'] as LoadResult
    for (const [name, result] of Object.entries(results)) {
      const ratio = result.requestsPerSecond / base.requestsPerSecond
      console.log(`   ${name}: ${fmt(result.requestsPerSecond)} req/s (${fmt(ratio, 2)} of reading a user), p99 ${result.p99} ms, CPU ${fmt(result.cpuMicrosPerRequest ?? 0)} us a request${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`)
    }
    return results
  } finally {
    await server.stop()
  }
}

/**
 * `--only posts`: a list page and one post (v1, anonymous, every post public) beside the bare and
 * minimal Fastify servers in alternating rounds, as the full run measures them: what the post
 * policy costs the public reads.
 */
async function benchPosts(target: SeedTarget) {
  const references: Starter[] = [() => startService(target, undefined, FRESH_OUR_PORT), () => startBare(target), () => startCeiling(target)]
  const results: Record<string, { ours: number; bare: number; ceiling: number; ratio: number; ceilingRatio: number; ceilingRatioSpread: [number, number]; p99: number; cpuMicros: (number | undefined)[]; cpuRatios: (number | undefined)[] }> = {}
  for (const scenario of scenarios('', BASE_ROWS).filter((scenario) => scenario.name === 'list-posts' || scenario.name === 'get-post')) {
    process.stdout.write(`   ${scenario.name} ... `)
    const check = (servers: Server[]) => checkSameResponses(servers, scenario.name, scenario.spec)
    const [ours, bare, ceiling] = (await measureTogether(references, scenario.spec, ROUNDS, check)) as [Measured, Measured, Measured]
    results[scenario.name] = {
      ours: ours.result.requestsPerSecond,
      bare: bare.result.requestsPerSecond,
      ceiling: ceiling.result.requestsPerSecond,
      ratio: ours.result.requestsPerSecond / bare.result.requestsPerSecond,
      ceilingRatio: ours.result.requestsPerSecond / ceiling.result.requestsPerSecond,
      ceilingRatioSpread: spread(ceiling.roundRatios),
      p99: ours.result.p99,
      cpuMicros: [ours.result.cpuMicrosPerRequest, bare.result.cpuMicrosPerRequest, ceiling.result.cpuMicrosPerRequest],
      cpuRatios: [cpuRatio(ours.result, bare.result), cpuRatio(ours.result, ceiling.result)],
    }
    const row = results[scenario.name]!
    console.log(
      `${fmt(row.ours)} req/s, p99 ${row.p99} ms; bare ${fmt(row.bare)} (${fmt(row.ratio, 2)}), fastify ${fmt(row.ceiling)} (${fmt(row.ceilingRatio, 2)}, rounds ${row.ceilingRatioSpread.map((value) => fmt(value, 2)).join('–')}); CPU µs/req ${row.cpuMicros.map((value) => fmt(value ?? 0)).join(' / ')}, CPU ratios ${row.cpuRatios.map((value) => fmt(value ?? 0, 2)).join(', ')}`,
    )
  }
  return results
}

/** --list-sizes: 10,000 and 1,000,000 (10,000 alone with --quick). */
const listSizes = () => (args['list-sizes'] ?? (quick ? String(BASE_ROWS) : `${BASE_ROWS},${SCALE_ROWS}`)).split(',').map(Number)

/** `--only visibility`: the v2 post list's first page for every kind of caller, beside a get and the same-work reference (bench/lib/lists.ts). */
function benchVisibility(target: SeedTarget) {
  return benchLists({
    target,
    baseRows: BASE_ROWS,
    sizes: listSizes(),
    startService: () => startService(target, undefined, FRESH_OUR_PORT),
    startReference: (statementsFile) =>
      args.baseline === undefined
        ? startProcess(path.join(root, 'bench/bare/list-reference.mjs'), CEILING_PORT, { ...referenceEnv(target), BENCH_LIST_STATEMENTS: statementsFile }, '/api/v2/posts/?limit=1')
        : startProcess(path.join(path.resolve(args.baseline), 'dist/server.js'), CEILING_PORT, serviceEnv(target, undefined, { BENCH_SKIP_MIGRATE: '1' }), '/health', SERVICE_NODE_FLAGS),
    login,
    together: async (starters, spec, check) => (await measureTogether(starters as Starter[], spec, ROUNDS, check as ((servers: Server[]) => Promise<void>) | undefined)).map((measured) => measured.result),
    sameAnswers: (servers, name, spec) => (args.baseline === undefined ? checkSameResponses(servers as Server[], name, spec) : Promise.resolve()),
    fmt,
  })
}

/** `--only comments`: the conversation under one post at each of --list-sizes comments (bench/lib/comments.ts). */
function benchCommentsOf(target: SeedTarget) {
  return benchComments({
    target,
    sizes: listSizes(),
    startService: () => startService(target, undefined, OUR_PORT, { CONTENT_SCHEMA: JSON.stringify(CONTENT_BENCH_SCHEMA) }),
    login,
    rounds: (server, requests, connections) => alternatingRounds(server as Server, requests, connections),
    fmt,
  })
}

/** `--only content`: the content model's reads and writes at each of --list-sizes posts (bench/lib/content.ts). */
function benchContentOf(target: SeedTarget) {
  return benchContent({
    target,
    baseRows: BASE_ROWS,
    sizes: listSizes(),
    startService: () => startService(target, undefined, OUR_PORT, { CONTENT_SCHEMA: JSON.stringify(CONTENT_BENCH_SCHEMA) }),
    login,
    rounds: (server, requests) => alternatingRounds(server as Server, requests),
    fmt,
  })
}

/** `--only search`: ranked search at each of --list-sizes posts (bench/lib/search.ts). */
function benchSearchOf(target: SeedTarget) {
  return benchSearch({
    target,
    baseRows: BASE_ROWS,
    sizes: listSizes(),
    startService: () => startService(target, undefined, OUR_PORT),
    login,
    // One request at a time: a search's own latency (p50, p99). At 50 connections a search that
    // takes a tenth of a second queues behind the others, and on SQLite a round's backlog spilled
    // into the next rounds, which then measured nothing.
    rounds: (server, requests) => alternatingRounds(server as Server, requests, 1),
    fmt,
  })
}

// `--only <mode>`: seed, measure that part alone, write its report, and nothing else.
if (args.only !== undefined) {
  const mode = args.only
  for (const dialect of dialects) {
    const target = await seededStorage(dialect)
    const report = { dialect, date: new Date().toISOString(), mode, machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version } }
    if (mode === 'startup') {
      const startup = await benchStartupOf(target)
      const memory = await benchMemoryBudget(target)
      writeReport({ ...report, startup, memory })
      printStartup(dialect, startup)
      printMemoryBudget(dialect, memory)
    } else if (mode === 'soak') writeReport({ ...report, soak: await benchSoak(target) })
    else if (mode === 'orgs') writeReport({ ...report, orgs: await benchOrgs(target) })
    else if (mode === 'posts') writeReport({ ...report, posts: await benchPosts(target) })
    else if (mode === 'comments') writeReport({ ...report, comments: await benchCommentsOf(target) })
    else if (mode === 'content') writeReport({ ...report, content: await benchContentOf(target) })
    else if (mode === 'search') writeReport({ ...report, search: await benchSearchOf(target) })
    else if (mode === 'write-costs') writeReport({ ...report, writeCosts: await benchWriteCosts(serviceEnv(target, 'silent'), BENCH_PASSWORD) })
    else if (mode === 'visibility') writeReport({ ...report, visibility: await benchVisibility(target) })
    else if (mode === 'abuse') writeReport({ ...report, abuse: await benchAbuse({ startService: (extra) => startService(target, undefined, OUR_PORT, extra), login, cpuMicros, rounds: ROUNDS }) })
    else if (mode === 'files') writeReport({ ...report, files: await benchFiles({ startService: (extra) => startService(target, undefined, OUR_PORT, extra), login, cpuMicros, rssMb, rounds: ROUNDS }) })
    else if (mode === 'replicas') {
      if (target.databaseUrl === undefined) throw new Error('--only replicas runs on PostgreSQL: pass --db postgres')
      writeReport({
        ...report,
        replicas: await benchReplicas({
          databaseUrl: target.databaseUrl,
          replicaUrl: process.env.BENCH_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres',
          startService: async (extra) => {
            const server = await startService(target, undefined, OUR_PORT, extra)
            return { url: server.url, pid: server.process.pid as number, stop: () => server.stop() }
          },
          login,
          load: (spec, pid) => load(spec as unknown as LoadSpec, pid),
          rounds: ROUNDS,
          duration: DURATION,
          connections: CONNECTIONS,
          maxUserId: BASE_ROWS,
          metricsPort: METRICS_PORT,
        }),
      })
    } else if (mode === 'export') writeReport({ ...report, export: await benchExport(target, { startService: (extra) => startService(target, undefined, OUR_PORT, extra), login }) })
    else writeReport({ ...report, ...(await benchOutgoingEvents(target)) })
    await dropStorage(target)
  }
  process.exit(0)
}

const reports: Report[] = []
for (const dialect of dialects) {
  const report = await benchDialect(dialect)
  reports.push(report)
  const json = writeReport(report)
  if (!quick) writeFileSync(path.join(root, `bench/results/latest-${dialect}.json`), json)
}
for (const report of reports) printReport(report)
console.log(`\nresults written to bench/results/`)
