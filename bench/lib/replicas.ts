// `--only replicas` (PostgreSQL): what reading from the hot standby (BENCH_REPLICA_URL, the one
// scripts/test-services.sh makes) does for the primary, and costs the service:
//   - under a mixed load (anonymous reads of a post page and a user, signed-in posts written), the
//     share of the anonymous reads the replica served, and the primary's transactions a second and
//     a request, against the same load without replicas;
//   - a writer who writes a post and reads it back at once, over and over: the share of its reads
//     that went to the primary, and how long after its write its reads went to the replica again;
//   - the CPU a get-user costs the service with a replica to choose against none (the cost of
//     choosing a target), in alternating rounds.
import pg from 'pg'

export interface ReplicaBenchDeps {
  databaseUrl: string
  replicaUrl: string
  startService(extra: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }>
  login(url: string, username?: string): Promise<string>
  load(spec: Record<string, unknown>, pid: number): Promise<{ requestsPerSecond: number; p99: number; non2xx: number; cpuMicrosPerRequest?: number; total?: number }>
  rounds: number
  duration: number
  connections: number
  maxUserId: number
  metricsPort: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

async function queryOne<T>(connectionString: string, text: string): Promise<T> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query(text)).rows[0] as T
  } finally {
    await client.end()
  }
}

/** Waits until the replica has replayed what the primary had written when called (the seeded rows). */
async function caughtUp(deps: ReplicaBenchDeps): Promise<void> {
  const system = `select system_identifier::text as id from pg_control_system()`
  const [primary, replica] = await Promise.all([queryOne<{ id: string }>(deps.databaseUrl, system), queryOne<{ id: string }>(deps.replicaUrl, system)])
  if (primary.id !== replica.id) throw new Error('bench: BENCH_REPLICA_URL is not a standby of the primary the benchmark seeds (BENCH_POSTGRES_URL)')
  const { lsn } = await queryOne<{ lsn: string }>(deps.databaseUrl, `select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as lsn`)
  for (;;) {
    const { replayed } = await queryOne<{ replayed: string }>(deps.replicaUrl, `select (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text as replayed`)
    if (Number(replayed) >= Number(lsn)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The primary's committed transactions in the bench database so far (each statement outside one is one). */
const primaryTransactions = async (databaseUrl: string) =>
  Number((await queryOne<{ count: string }>(databaseUrl, 'select xact_commit::text as count from pg_stat_database where datname = current_database()')).count)

/** A counter of the service's /metrics, by its labels as they appear (`{target="replica-1"}`), or 0. */
async function metric(port: number, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}${labels} `))
  return line === undefined ? 0 : Number(line.split(' ')[1])
}

export async function benchReplicas(deps: ReplicaBenchDeps) {
  await caughtUp(deps)
  const replicaDatabase = new URL(deps.replicaUrl)
  replicaDatabase.pathname = new URL(deps.databaseUrl).pathname
  const withReplica = { DATABASE_REPLICA_URLS: replicaDatabase.toString(), METRICS_PORT: String(deps.metricsPort) }
  const without = { METRICS_PORT: String(deps.metricsPort) }

  // The mixed load, with and without the replica, in alternating rounds.
  const mixed = async (extra: Record<string, string>) => {
    const service = await deps.startService(extra)
    try {
      const token = await deps.login(service.url)
      const spec = {
        url: service.url,
        connections: deps.connections,
        duration: deps.duration,
        maxUserId: deps.maxUserId,
        mix: [
          { path: '/api/v2/posts?limit=10', weight: 5, kind: 'read' },
          { path: '/api/v2/users/:id', weight: 4, kind: 'read' },
          { path: '/api/v2/posts', method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: { title: 'Mixed {n}', text: 'Written under the mixed load' }, weight: 1, kind: 'write' },
        ],
      }
      const [replicaBefore, fallbacksBefore, transactionsBefore] = await Promise.all([metric(deps.metricsPort, 'db_replica_safe_reads_total', '{target="replica-1"}'), metric(deps.metricsPort, 'db_replica_fallbacks_total'), primaryTransactions(deps.databaseUrl)])
      const result = await deps.load(spec, service.pid)
      const [replicaAfter, fallbacksAfter, transactionsAfter] = await Promise.all([metric(deps.metricsPort, 'db_replica_safe_reads_total', '{target="replica-1"}'), metric(deps.metricsPort, 'db_replica_fallbacks_total'), primaryTransactions(deps.databaseUrl)])
      const onReplica = replicaAfter - replicaBefore
      const fallbacks = fallbacksAfter - fallbacksBefore
      const transactions = transactionsAfter - transactionsBefore
      return {
        requestsPerSecond: result.requestsPerSecond,
        p99: result.p99,
        non2xx: result.non2xx,
        // The GETs here are all anonymous: every replica-safe read of a GET went to the replica or fell back.
        anonymousReadsOnReplica: onReplica + fallbacks > 0 ? onReplica / (onReplica + fallbacks) : 0,
        primaryTransactionsPerSecond: transactions / deps.duration,
        primaryTransactionsPerRequest: result.total ? transactions / result.total : 0,
      }
    } finally {
      await service.stop()
    }
  }
  const mixedRounds: { withReplica: Awaited<ReturnType<typeof mixed>>[]; without: Awaited<ReturnType<typeof mixed>>[] } = { withReplica: [], without: [] }
  for (let round = 0; round < deps.rounds; round++) {
    mixedRounds.withReplica.push(await mixed(withReplica))
    mixedRounds.without.push(await mixed(without))
  }
  const mixedSummary = (rounds: Awaited<ReturnType<typeof mixed>>[]) => ({
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p99: median(rounds.map((round) => round.p99)),
    non2xx: rounds.reduce((sum, round) => sum + round.non2xx, 0),
    anonymousReadsOnReplica: median(rounds.map((round) => round.anonymousReadsOnReplica)),
    primaryTransactionsPerSecond: Math.round(median(rounds.map((round) => round.primaryTransactionsPerSecond))),
    primaryTransactionsPerRequest: median(rounds.map((round) => round.primaryTransactionsPerRequest)),
  })

  // A writer reading back what it just wrote, one request at a time.
  const writer = await (async () => {
    const service = await deps.startService(withReplica)
    try {
      const token = await deps.login(service.url)
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const untilReplica: number[] = []
      let reads = 0
      let onPrimary = 0
      for (let write = 0; write < 30; write++) {
        const created = await fetch(`${service.url}/api/v2/posts`, { method: 'POST', headers, body: JSON.stringify({ title: `Writer ${write}`, text: 'Read back at once' }) })
        const { id } = (await created.json()) as { id: number }
        const writtenAt = performance.now()
        for (;;) {
          const before = await metric(deps.metricsPort, 'db_replica_safe_reads_total', '{target="replica-1"}')
          const read = await fetch(`${service.url}/api/v2/posts/${id}`, { headers })
          if (read.status !== 200) throw new Error(`bench: the writer's read answered ${read.status}`)
          reads++
          if ((await metric(deps.metricsPort, 'db_replica_safe_reads_total', '{target="replica-1"}')) > before) {
            untilReplica.push(performance.now() - writtenAt)
            break
          }
          onPrimary++
        }
      }
      return { reads, readsOnPrimary: onPrimary / reads, msUntilReplicaP50: median(untilReplica), msUntilReplicaMax: Math.max(...untilReplica) }
    } finally {
      await service.stop()
    }
  })()

  // The cost of choosing: a get-user's CPU with a replica to choose against none.
  const getUser = async (extra: Record<string, string>) => {
    const service = await deps.startService(extra)
    try {
      const spec = { url: service.url, path: '/api/v2/users/:id', randomUserId: true, maxUserId: deps.maxUserId, connections: deps.connections, duration: deps.duration }
      await deps.load({ ...spec, duration: 1 }, service.pid)
      return await deps.load(spec, service.pid)
    } finally {
      await service.stop()
    }
  }
  const cpu = { withReplica: [] as number[], without: [] as number[], rpsWithReplica: [] as number[], rpsWithout: [] as number[] }
  for (let round = 0; round < deps.rounds; round++) {
    const a = await getUser(withReplica)
    const b = await getUser(without)
    cpu.withReplica.push(a.cpuMicrosPerRequest ?? 0)
    cpu.without.push(b.cpuMicrosPerRequest ?? 0)
    cpu.rpsWithReplica.push(a.requestsPerSecond)
    cpu.rpsWithout.push(b.requestsPerSecond)
  }
  const choosing = {
    cpuMicrosWithReplica: median(cpu.withReplica),
    cpuMicrosWithout: median(cpu.without),
    added: median(cpu.withReplica) / median(cpu.without) - 1,
    requestsPerSecondWithReplica: median(cpu.rpsWithReplica),
    requestsPerSecondWithout: median(cpu.rpsWithout),
  }

  const report = { mixed: { withReplica: mixedSummary(mixedRounds.withReplica), without: mixedSummary(mixedRounds.without) }, writer, choosing }
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`
  console.log(`   mixed load, with the replica: ${report.mixed.withReplica.requestsPerSecond} req/s, p99 ${report.mixed.withReplica.p99} ms; anonymous reads on the replica ${pct(report.mixed.withReplica.anonymousReadsOnReplica)}; primary ${report.mixed.withReplica.primaryTransactionsPerSecond} transactions/s (${report.mixed.withReplica.primaryTransactionsPerRequest.toFixed(2)} a request)`)
  console.log(`   mixed load, without:          ${report.mixed.without.requestsPerSecond} req/s, p99 ${report.mixed.without.p99} ms; primary ${report.mixed.without.primaryTransactionsPerSecond} transactions/s (${report.mixed.without.primaryTransactionsPerRequest.toFixed(2)} a request)`)
  console.log(`   a writer reading back its post: ${pct(writer.readsOnPrimary)} of ${writer.reads} reads on the primary; on the replica again ${writer.msUntilReplicaP50.toFixed(0)} ms after the write (p50; max ${writer.msUntilReplicaMax.toFixed(0)} ms)`)
  console.log(`   get-user CPU: ${choosing.cpuMicrosWithReplica.toFixed(0)} us with the replica, ${choosing.cpuMicrosWithout.toFixed(0)} us without (${pct(choosing.added)}); ${choosing.requestsPerSecondWithReplica} against ${choosing.requestsPerSecondWithout} req/s`)
  return report
}
