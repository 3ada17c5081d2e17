// npm run bench [-- --db sqlite|postgres|all] [--quick] [--rounds N] [--duration S]
//
// Starts the built service on a seeded database and drives it with autocannon (keep-alive,
// 50 connections, no pipelining), side by side with a bare node:http server that runs the same
// SQL and sends the same response. Reports req/s, p50/p99 latency and peak RSS per scenario,
// our throughput as a ratio of the bare server's (median of alternating rounds), logins under
// load, and how the main reads behave at 10k and at 1M rows. Figures go to bench/results/.
import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { createDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { PASSWORD_HASH_PARAMETERS } from '../src/modules/auth/passwords.js'
import { BENCH_PASSWORD, NEEDLE, needlePositions, seed } from './lib/seed.js'
import type { SeedTarget } from './lib/seed.js'

const root = path.resolve(import.meta.dirname, '..')
const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    'scale-rows': { type: 'string' },
  },
})
const quick = args.quick ?? false
const ROUNDS = Number(args.rounds ?? (quick ? 1 : 3))
const DURATION = Number(args.duration ?? (quick ? 3 : 5))
const WARMUP = quick ? 1 : 2
const BASE_ROWS = 10_000
const SCALE_ROWS = Number(args['scale-rows'] ?? 1_000_000)
const CONNECTIONS = 50
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const OUR_PORT = 8400
const BARE_PORT = 8401
const NO_LIMITS_PORT = 8402
const WITH_LIMITS_PORT = 8403
const METRICS_PORT = 8404

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

interface LoadSpec {
  url: string
  path: string
  method?: string
  headers?: Record<string, string>
  body?: unknown
  randomUserId?: boolean
  maxUserId?: number
  connections: number
  duration: number
}

interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  timeouts: number
  peakRssMb: number
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

/** Runs autocannon in a pinned child process while sampling the server's RSS. */
async function load(spec: LoadSpec, serverPid: number): Promise<LoadResult> {
  const [command, commandArgs] = pinned(1, process.execPath, [path.join(root, 'bench/lib/load-worker.mjs'), JSON.stringify(spec)])
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  let peak = rssMb(serverPid)
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serverPid))), 100)
  await new Promise((resolve) => child.on('exit', resolve))
  clearInterval(sampler)
  const result = JSON.parse(output) as Omit<LoadResult, 'peakRssMb'>
  return { ...result, peakRssMb: Math.round(Math.max(peak, rssMb(serverPid))) }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

function summarise(results: LoadResult[]): LoadResult {
  return {
    requestsPerSecond: Math.round(median(results.map((r) => r.requestsPerSecond))),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    timeouts: 0,
    peakRssMb: Math.max(...results.map((r) => r.peakRssMb)),
  }
}

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

function serviceEnv(target: SeedTarget, logLevel = 'warn', extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
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
// heap towards its default of a quarter of the machine's memory before collecting.
const startService = (target: SeedTarget, logLevel?: string, port = OUR_PORT, extra: Record<string, string> = {}) =>
  startProcess(path.join(root, 'dist/server.js'), port, serviceEnv(target, logLevel, extra), '/health', ['--max-old-space-size=1024'])

const startBare = (target: SeedTarget) =>
  startProcess(
    path.join(root, `bench/bare/${target.dialect}-server.mjs`),
    BARE_PORT,
    { DATA_DIR: target.dataDir, ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}) },
    '/services/v1/users/1',
  )

async function prepareStorage(dialect: Dialect): Promise<SeedTarget> {
  const dataDir = path.join(root, 'bench/.data', dialect)
  rmSync(dataDir, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  let databaseUrl: string | undefined
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
    await admin.query('drop database if exists ups_bench with (force)')
    await admin.query('create database ups_bench')
    await admin.end()
    const url = new URL(ADMIN_URL)
    url.pathname = '/ups_bench'
    databaseUrl = url.toString()
  }
  const database = await createDatabase({ databaseUrl, dataDir })
  await migrateToLatest(database.db)
  await database.close()
  return { dialect, dataDir, databaseUrl }
}

async function dropStorage(target: SeedTarget): Promise<void> {
  if (target.dialect !== 'postgres') return
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query('drop database if exists ups_bench with (force)')
  await admin.end()
}

async function login(url: string): Promise<string> {
  const response = await fetch(`${url}/services/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'u1', password: BENCH_PASSWORD }),
  })
  if (!response.ok) throw new Error(`bench login failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

interface Scenario {
  name: string
  spec: Omit<LoadSpec, 'url' | 'connections' | 'duration'>
  bare: boolean
}

function scenarios(token: string, rows: number): Scenario[] {
  const auth = { authorization: `Bearer ${token}` }
  return [
    { name: 'get-user', spec: { path: '/services/v1/users/:id', randomUserId: true, maxUserId: rows }, bare: true },
    { name: 'list-users', spec: { path: '/services/v1/users/?page=1&items_per_page=10' }, bare: true },
    { name: 'search-users', spec: { path: `/services/v1/users/search?name=${NEEDLE}` }, bare: true },
    { name: 'list-posts', spec: { path: '/services/v1/posts/?page=1&limit=10' }, bare: true },
    { name: 'me', spec: { path: '/services/v1/users/me', headers: auth }, bare: false },
    {
      name: 'create-post',
      spec: {
        path: '/services/v1/posts/',
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: { title: 'Benchmark post', text: 'Written by autocannon.' },
      },
      bare: false,
    },
    {
      name: 'login',
      spec: {
        path: '/services/v1/login',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: { username: 'u1', password: BENCH_PASSWORD },
      },
      bare: false,
    },
  ]
}

interface ScenarioResult {
  name: string
  ours: LoadResult
  bare?: LoadResult
  ratio?: number
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

/** Ours and bare in alternating rounds (ours first, then bare first, ...), medians of each. */
async function measureSideBySide(ours: Server, bare: Server, spec: Scenario['spec'], rounds = ROUNDS): Promise<[LoadResult, LoadResult]> {
  const oursPid = ours.process.pid as number
  const barePid = bare.process.pid as number
  await load({ ...spec, url: ours.url, connections: CONNECTIONS, duration: WARMUP }, oursPid)
  await load({ ...spec, url: bare.url, connections: CONNECTIONS, duration: WARMUP }, barePid)
  const oursResults: LoadResult[] = []
  const bareResults: LoadResult[] = []
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours']
    for (const which of order) {
      const server = which === 'ours' ? ours : bare
      const result = await load({ ...spec, url: server.url, connections: CONNECTIONS, duration: DURATION }, server.process.pid as number)
      ;(which === 'ours' ? oursResults : bareResults).push(result)
    }
  }
  return [summarise(oursResults), summarise(bareResults)]
}

interface ScaleRow {
  name: string
  small: LoadResult
  large: LoadResult
  slowdown: number
}

function scaleScenarios(rows: number): Scenario[] {
  const deepPage = Math.floor(rows / 2 / 10)
  return [
    { name: 'get-user', spec: { path: '/services/v1/users/:id', randomUserId: true, maxUserId: rows }, bare: false },
    { name: 'list-users page 1', spec: { path: '/services/v1/users/?page=1&items_per_page=10' }, bare: false },
    { name: 'list-users deep page', spec: { path: `/services/v1/users/?page=${deepPage}&items_per_page=10` }, bare: false },
    { name: 'search-users', spec: { path: `/services/v1/users/search?name=${NEEDLE}` }, bare: false },
    { name: 'list-posts', spec: { path: '/services/v1/posts/?page=1&limit=10' }, bare: false },
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

async function benchDialect(dialect: Dialect) {
  const started = Date.now()
  console.log(`\n== ${dialect}: seeding ${fmt(BASE_ROWS)} users and posts`)
  const target = await prepareStorage(dialect)
  await seed(target, 1, BASE_ROWS, needlePositions(BASE_ROWS))

  let ours = await startService(target)
  const bare = await startBare(target)
  const token = await login(ours.url)
  const results: ScenarioResult[] = []
  for (const scenario of scenarios(token, BASE_ROWS)) {
    process.stdout.write(`   ${scenario.name} ... `)
    if (scenario.bare) {
      const [oursResult, bareResult] = await measureSideBySide(ours, bare, scenario.spec)
      const ratio = oursResult.requestsPerSecond / bareResult.requestsPerSecond
      results.push({ name: scenario.name, ours: oursResult, bare: bareResult, ratio })
      console.log(`${fmt(oursResult.requestsPerSecond)} req/s, bare ${fmt(bareResult.requestsPerSecond)} (${fmt(ratio, 2)})`)
    } else {
      const oursResult = await measure(ours, scenario.spec, ROUNDS)
      results.push({ name: scenario.name, ours: oursResult })
      console.log(`${fmt(oursResult.requestsPerSecond)} req/s`)
    }
  }
  await bare.stop()

  // The per-request limits hook: get-user on two fresh servers, one with REQUEST_LIMITS=off, in
  // alternating rounds (at least three, even in --quick: the difference is small and runs are noisy).
  process.stdout.write('   request-limits hook ... ')
  const withLimits = await startService(target, undefined, WITH_LIMITS_PORT)
  const withoutLimits = await startService(target, undefined, NO_LIMITS_PORT, { REQUEST_LIMITS: 'off' })
  const [limitsOn, limitsOff] = await measureSideBySide(withLimits, withoutLimits, scenarios(token, BASE_ROWS)[0]!.spec, Math.max(3, ROUNDS))
  await Promise.all([withLimits.stop(), withoutLimits.stop()])
  const requestLimitsCost = 1 - limitsOn.requestsPerSecond / limitsOff.requestsPerSecond
  console.log(`get-user ${fmt(limitsOn.requestsPerSecond)} req/s with, ${fmt(limitsOff.requestsPerSecond)} without (cost ${fmt(requestLimitsCost * 100, 1)}%)`)

  // Metrics: get-user with METRICS_PORT set, against the same service without, likewise.
  process.stdout.write('   metrics ... ')
  const withMetrics = await startService(target, undefined, WITH_LIMITS_PORT, { METRICS_PORT: String(METRICS_PORT) })
  const withoutMetrics = await startService(target, undefined, NO_LIMITS_PORT)
  const [metricsOn, metricsOff] = await measureSideBySide(withMetrics, withoutMetrics, scenarios(token, BASE_ROWS)[0]!.spec, Math.max(3, ROUNDS))
  await Promise.all([withMetrics.stop(), withoutMetrics.stop()])
  const metricsCost = 1 - metricsOn.requestsPerSecond / metricsOff.requestsPerSecond
  console.log(`get-user ${fmt(metricsOn.requestsPerSecond)} req/s with, ${fmt(metricsOff.requestsPerSecond)} without (cost ${fmt(metricsCost * 100, 1)}%)`)

  // Logins at full tilt on the thread pool while get-by-id runs: the event loop must stay free.
  process.stdout.write('   logins under load ... ')
  const [loginLoad, readsDuringLogins] = await Promise.all([
    load({ ...scenarios(token, BASE_ROWS)[6]!.spec, url: ours.url, connections: 16, duration: DURATION * 2 }, ours.process.pid as number),
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

  const scale: ScaleRow[] = []
  if (!quick) {
    const measureScale = async (rows: number) => {
      const server = await startService(target)
      const out: LoadResult[] = []
      for (const scenario of scaleScenarios(rows)) out.push(await measure(server, scenario.spec, ROUNDS))
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
    scaleScenarios(SCALE_ROWS).forEach((scenario, index) => {
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
    scale: scale.length ? { smallRows: BASE_ROWS, largeRows: SCALE_ROWS, rows: scale } : undefined,
    seconds: Math.round((Date.now() - started) / 1000),
  }
  await dropStorage(target)
  return report
}

type Report = Awaited<ReturnType<typeof benchDialect>>

function check(label: string, ok: boolean, detail: string) {
  return `${ok ? 'PASS' : 'MISS'}  ${label}: ${detail}`
}

function printReport(report: Report) {
  console.log(`\n### ${report.dialect} (${report.mode}) — ${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}`)
  console.log('| scenario | req/s | p50 ms | p99 ms | peak RSS MB | bare req/s | ratio |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const row of report.scenarios) {
    console.log(
      `| ${row.name} | ${fmt(row.ours.requestsPerSecond)} | ${row.ours.p50} | ${row.ours.p99} | ${row.ours.peakRssMb} | ${row.bare ? fmt(row.bare.requestsPerSecond) : '—'} | ${row.ratio ? fmt(row.ratio, 2) : '—'} |`,
    )
  }
  const l = report.loginsUnderLoad
  console.log(`\nlogins at full tilt: ${fmt(l.loginsPerSecond)} logins/s (argon2id m=${report.passwordHashing.memoryKiB} KiB, t=${report.passwordHashing.iterations}, p=${report.passwordHashing.parallelism}); get-user meanwhile: ${fmt(l.getUserRequestsPerSecond)} req/s, p50 ${l.getUserP50} ms, p99 ${l.getUserP99} ms`)
  if (report.scale) {
    console.log(`\n| at scale | ${fmt(report.scale.smallRows)} rows req/s | p50 ms | ${fmt(report.scale.largeRows)} rows req/s | p50 ms | slowdown |`)
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const row of report.scale.rows) {
      console.log(`| ${row.name} | ${fmt(row.small.requestsPerSecond)} | ${row.small.p50} | ${fmt(row.large.requestsPerSecond)} | ${row.large.p50} | ${fmt(row.slowdown, 2)}× |`)
    }
  }
  const ratio = (name: string) => report.scenarios.find((row) => row.name === name)?.ratio ?? 0
  const peak = Math.max(...report.scenarios.map((row) => row.ours.peakRssMb))
  const lines = [
    check('get-user ratio >= 0.85', ratio('get-user') >= 0.85, fmt(ratio('get-user'), 2)),
    check('list-users ratio >= 0.85', ratio('list-users') >= 0.85, fmt(ratio('list-users'), 2)),
    check('get-user p99 < 50 ms during logins', l.getUserP99 < 50, `${l.getUserP99} ms`),
    ...(report.dialect === 'sqlite' ? [check('peak RSS < 200 MB', peak < 200, `${peak} MB`)] : []),
    ...(report.scale
      ? report.scale.rows
          .filter((row) => row.name === 'get-user' || row.name === 'list-users page 1')
          .map((row) =>
            check(
              `${row.name} at ${fmt(report.scale?.largeRows ?? 0)} rows within 1.5x of ${fmt(report.scale?.smallRows ?? 0)}`,
              row.slowdown <= 1.5,
              `${fmt(row.slowdown, 2)}×`,
            ),
          )
      : []),
  ]
  console.log(`\n${lines.join('\n')}`)
}

const reports: Report[] = []
for (const dialect of dialects) {
  const report = await benchDialect(dialect)
  reports.push(report)
  mkdirSync(path.join(root, 'bench/results'), { recursive: true })
  const stamp = report.date.replace(/[:.]/g, '-')
  const json = `${JSON.stringify(report, null, 2)}\n`
  writeFileSync(path.join(root, `bench/results/${dialect}-${report.mode}-${stamp}.json`), json)
  if (!quick) writeFileSync(path.join(root, `bench/results/latest-${dialect}.json`), json)
}
for (const report of reports) printReport(report)
console.log(`\nresults written to bench/results/`)
