// `npm run bench -- --only visibility`: the v2 post list's first page (10 posts with their total)
// for every kind of caller, at 10,000 posts and at 1,000,000 (--list-sizes), beside a get of one
// post and beside the same-work reference (bench/bare/list-reference.mjs: a minimal Fastify
// server running the statements the service sends for that caller). For each: requests a second,
// the service's CPU per request, PostgreSQL's CPU per request, and the plans of the statements.
import { writeFileSync } from 'node:fs'
import path from 'node:path'

import { CompiledQuery } from 'kysely'

import { createDatabase } from '../../src/db/database.js'
import type { ListStatements, Statement } from './list-statements.js'
import { listStatementsOf } from './list-statements.js'
import { LIST_READERS, patternSeededPosts, seedMixedPostsUpTo, seedOrganizations } from './lists-seed.js'
import type { SeedTarget } from './seed.js'

export interface ListLoad {
  requestsPerSecond: number
  p99: number
  non2xx: number
  cpuMicrosPerRequest?: number
  databaseCpuMicrosPerRequest?: number
}

export interface ListServer {
  url: string
  stop(): Promise<void>
}

export interface ListsBenchTools {
  target: SeedTarget
  /** Posts seeded already (bench/lib/seed.ts): the get reads a random public one of them. */
  baseRows: number
  sizes: number[]
  startService(): Promise<ListServer>
  startReference(statementsFile: string): Promise<ListServer>
  login(url: string, username: string): Promise<string>
  /** The servers in alternating rounds on fresh processes, after `check` (same answers); each one's summary. */
  together(starters: (() => Promise<ListServer>)[], spec: { path: string; headers?: Record<string, string>; randomUserId?: boolean; maxUserId?: number }, check?: (servers: ListServer[]) => Promise<void>): Promise<ListLoad[]>
  sameAnswers(servers: ListServer[], name: string, spec: { path: string; headers?: Record<string, string> }): Promise<void>
  fmt(value: number, digits?: number): string
}

export interface ListRow {
  caller: string
  service: ListLoad
  reference?: ListLoad
  /** The service's req/s ÷ the reference's. */
  ratio?: number
  /** PostgreSQL's CPU for this request ÷ its CPU for a get of one post by the same kind of caller (anonymous or signed in). */
  databaseTimeOfGet?: number
}

export interface ListsBenchResult {
  posts: number
  rows: ListRow[]
  /** The statements of each caller's list, each with its plan. */
  plans: Record<string, { sql: string; plan: string }[]>
}

const LIMIT = 10
const PAGE = `/api/v2/posts/?limit=${LIMIT}`

async function explain(target: SeedTarget, statements: Statement[]): Promise<{ sql: string; plan: string }[]> {
  const database = await createDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
  try {
    const prefix = target.dialect === 'postgres' ? 'explain (analyze, buffers, costs off, summary off)' : 'explain query plan'
    const plans = []
    for (const { sql, parameters } of statements) {
      const { rows } = await database.db.executeQuery(CompiledQuery.raw(`${prefix} ${sql}`, parameters))
      const plan = rows.map((row) => (target.dialect === 'postgres' ? (row as Record<string, string>)['QUERY PLAN'] : (row as { detail: string }).detail)).join('\n')
      plans.push({ sql, plan })
    }
    return plans
  } finally {
    await database.close()
  }
}

const allOf = (statements: ListStatements) => [...statements.roles, ...statements.page, ...statements.count, ...statements.files]

export async function benchLists(tools: ListsBenchTools): Promise<ListsBenchResult[]> {
  const { target, fmt } = tools
  await seedOrganizations(target)
  await patternSeededPosts(target, tools.baseRows)
  const results: ListsBenchResult[] = []
  let seeded = tools.baseRows
  for (const size of tools.sizes) {
    process.stdout.write(`   seeding posts of mixed visibility up to ${fmt(size)} ... `)
    await seedMixedPostsUpTo(target, seeded, size, tools.baseRows)
    seeded = Math.max(seeded, size)
    console.log('done')
    const tokens = new Map<string, { userId: number; token: string }>()
    const first = await tools.startService()
    try {
      for (const reader of LIST_READERS) tokens.set(reader.name, { userId: Number(reader.username.slice(1)), token: await tools.login(first.url, reader.username) })
    } finally {
      await first.stop()
    }
    const callers: { name: string; userId?: number; headers: Record<string, string> }[] = [
      { name: 'anonymous', headers: {} },
      ...LIST_READERS.map((reader) => {
        const { userId, token } = tokens.get(reader.name)!
        return { name: reader.name, userId, headers: { authorization: `Bearer ${token}` } }
      }),
    ]
    const statements: Record<string, ListStatements> = {}
    const plans: ListsBenchResult['plans'] = {}
    for (const caller of callers) {
      const captured = await listStatementsOf(target, caller.userId, LIMIT)
      statements[caller.userId === undefined ? 'anonymous' : String(caller.userId)] = captured
      plans[caller.name] = await explain(target, allOf(captured))
    }
    const statementsFile = path.join(target.dataDir, 'list-statements.json')
    writeFileSync(statementsFile, JSON.stringify(statements))

    const rows: ListRow[] = []
    // A get of one post by the anonymous caller and by a signed-in one (who pays the session's check
    // as their lists do): each list's database time is told as a multiple of its caller's kind of get.
    const gets = new Map<string, ListLoad>()
    for (const [kind, headers] of [['anonymous', {}], ['signed in', callers[1]!.headers]] as const) {
      process.stdout.write(`   ${fmt(size)} posts, get one post (${kind}) ... `)
      // ":id" is a random number up to a tenth of the seeded posts: with the 0 after it, the id of a public post.
      const [get] = await tools.together([tools.startService], { path: '/api/v2/posts/:id0', randomUserId: true, maxUserId: tools.baseRows / 10, headers })
      gets.set(kind, get!)
      rows.push({ caller: `get one post (${kind})`, service: get! })
      console.log(line(get!, fmt))
    }
    for (const caller of callers) {
      const get = gets.get(caller.userId === undefined ? 'anonymous' : 'signed in')
      process.stdout.write(`   ${fmt(size)} posts, first page, ${caller.name} ... `)
      const spec = { path: PAGE, headers: caller.headers }
      const [service, reference] = await tools.together([tools.startService, () => tools.startReference(statementsFile)], spec, (servers) => tools.sameAnswers(servers, caller.name, spec))
      const row: ListRow = {
        caller: caller.name,
        service: service!,
        reference: reference!,
        ratio: service!.requestsPerSecond / reference!.requestsPerSecond,
        ...(get!.databaseCpuMicrosPerRequest && service!.databaseCpuMicrosPerRequest ? { databaseTimeOfGet: service!.databaseCpuMicrosPerRequest / get!.databaseCpuMicrosPerRequest } : {}),
      }
      rows.push(row)
      console.log(`${line(service!, fmt)}; reference ${line(reference!, fmt)}; ÷ reference ${fmt(row.ratio ?? 0, 2)}${row.databaseTimeOfGet ? `; database time ${fmt(row.databaseTimeOfGet, 2)}× its caller's get` : ''}`)
    }
    for (const [caller, callerPlans] of Object.entries(plans)) {
      console.log(`   plans, ${caller}, ${fmt(size)} posts:`)
      for (const { sql, plan } of callerPlans) console.log(`      ${sql}\n${plan.replace(/^/gm, '         ')}`)
    }
    results.push({ posts: size, rows, plans })
  }
  return results
}

function line(result: ListLoad, fmt: ListsBenchTools['fmt']): string {
  const database = result.databaseCpuMicrosPerRequest === undefined ? '' : `, database ${fmt(result.databaseCpuMicrosPerRequest)} µs`
  return `${fmt(result.requestsPerSecond)} req/s (p99 ${result.p99} ms${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}), CPU ${fmt(result.cpuMicrosPerRequest ?? 0)} µs${database}`
}
