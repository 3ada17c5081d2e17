// Cold start in the benchmark: from spawning `node dist/server.js` (as `npm start` runs it) to its
// first 200 from /health, and from /ready, on the existing (seeded) data and on fresh storage
// whose migrations run first; beside the minimal Fastify server and the bare node:http server
// over the same data, started the same way, to their first answer. The polling client runs on
// the load generator's core and asks every 2 ms, so what it adds is at most that.
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import http from 'node:http'

import { median } from './percentile.mjs'

export interface StartupCommand {
  script: string
  nodeFlags?: string[]
  env: Record<string, string>
  /** The path whose first answer (any status) marks the start; the service is asked /health then /ready for a 200. */
  firstAnswerPath?: string
}

export interface StartupBenchTools {
  /** The service on the seeded storage. */
  existing: StartupCommand
  /** The service on new, empty storage; made before each start, removed after. */
  fresh(): Promise<{ command: StartupCommand; remove(): Promise<void> }>
  references: { name: string; command: StartupCommand }[]
  pinned(cpu: number, command: string, commandArgs: string[]): [string, string[]]
  rounds: number
  port: number
  cwd: string
}

export interface StartTimes {
  /** Median over the counted starts, in milliseconds. */
  firstAnswerMs: number
  readyMs?: number
  /** Lowest and highest of the counted starts (to the first answer). */
  spread: [number, number]
  /** The first start of the run, not counted: the operating system's file cache and, on Node 22 and later, the compile cache are cold. */
  firstStartMs: number
}

export interface StartupBenchResult {
  node: string
  starts: number
  existing: StartTimes
  fresh: StartTimes
  references: Record<string, StartTimes>
}

const POLL_MS = 2

function status(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', () => resolve(0))
  })
}

async function until(port: number, path: string, accept: (code: number) => boolean, child: ChildProcess, log: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited while starting:\n${log()}`)
    if (accept(await status(port, path))) return
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** One start: milliseconds from spawn to the first answer and (for the service) to /ready's 200. */
async function timeStart(tools: StartupBenchTools, command: StartupCommand): Promise<{ firstAnswerMs: number; readyMs?: number }> {
  const [program, programArgs] = tools.pinned(0, process.execPath, [...(command.nodeFlags ?? []), command.script])
  const started = performance.now()
  const child = spawn(program, programArgs, { cwd: tools.cwd, env: { PATH: process.env.PATH ?? '', ...command.env, PORT: String(tools.port) }, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)))
  try {
    if (command.firstAnswerPath !== undefined) {
      await until(tools.port, command.firstAnswerPath, (code) => code !== 0, child, () => log)
      return { firstAnswerMs: performance.now() - started }
    }
    await until(tools.port, '/health', (code) => code === 200, child, () => log)
    const firstAnswerMs = performance.now() - started
    await until(tools.port, '/ready', (code) => code === 200, child, () => log)
    return { firstAnswerMs, readyMs: performance.now() - started }
  } finally {
    child.kill('SIGTERM')
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve))
  }
}

function summarise(first: { firstAnswerMs: number }, counted: { firstAnswerMs: number; readyMs?: number }[]): StartTimes {
  const answers = counted.map((start) => start.firstAnswerMs)
  const ready = counted.flatMap((start) => (start.readyMs === undefined ? [] : [start.readyMs]))
  return {
    firstAnswerMs: Math.round(median(answers)),
    ...(ready.length ? { readyMs: Math.round(median(ready)) } : {}),
    spread: [Math.round(Math.min(...answers)), Math.round(Math.max(...answers))],
    firstStartMs: Math.round(first.firstAnswerMs),
  }
}

async function freshStart(tools: StartupBenchTools) {
  const fresh = await tools.fresh()
  try {
    return await timeStart(tools, fresh.command)
  } finally {
    await fresh.remove()
  }
}

/** One uncounted start of each, then `rounds` rounds, each starting every one in turn. */
export async function benchStartup(tools: StartupBenchTools): Promise<StartupBenchResult> {
  const firstExisting = await timeStart(tools, tools.existing)
  const firstFresh = await freshStart(tools)
  const firstReferences: { firstAnswerMs: number }[] = []
  for (const reference of tools.references) firstReferences.push(await timeStart(tools, reference.command))
  const existing = []
  const fresh = []
  const references: { firstAnswerMs: number }[][] = tools.references.map(() => [])
  for (let round = 0; round < tools.rounds; round++) {
    existing.push(await timeStart(tools, tools.existing))
    fresh.push(await freshStart(tools))
    for (const [index, reference] of tools.references.entries()) references[index]?.push(await timeStart(tools, reference.command))
  }
  return {
    node: process.version,
    starts: tools.rounds,
    existing: summarise(firstExisting, existing),
    fresh: summarise(firstFresh, fresh),
    references: Object.fromEntries(tools.references.map((reference, index) => [reference.name, summarise(firstReferences[index] ?? { firstAnswerMs: 0 }, references[index] ?? [])])),
  }
}
