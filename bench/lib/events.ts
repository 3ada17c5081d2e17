// The outgoing events in the benchmark: how many webhook deliveries a second one process sends
// while posts are written and after, and how fast one post reaches 1,000 open event streams.
// Both run on the service as `npm start` runs it; run.ts provides the servers and the load.
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

import { nearestRank } from './percentile.mjs'

export interface EventsBenchServer {
  process: ChildProcess
  url: string
  stop(): Promise<void>
}

export interface EventsBenchTools {
  /** Starts the service with these settings added. */
  startService(extra: Record<string, string>): Promise<EventsBenchServer>
  /** Logs in as the seeded superuser. */
  login(url: string): Promise<string>
  /** An autocannon load from the load generator's core; `total` is every response counted. */
  load(spec: Record<string, unknown>, serverPid: number): Promise<{ requestsPerSecond: number; total?: number; non2xx: number }>
  /** A command pinned to a core when the machine allows it. */
  pinned(cpu: number, command: string, commandArgs: string[]): [string, string[]]
  rssMb(pid: number): number
  durationSeconds: number
}

export interface WebhookBenchResult {
  /** Connections creating posts. */
  writers: number
  /** While posts are written and the receiver answers at once. */
  live: {
    written: number
    writesPerSecond: number
    delivered: number
    /** Deliveries over the span from the first to the last arrival. */
    deliveriesPerSecond: number
    lagP50Ms: number
    lagP99Ms: number
  }
  /** A backlog built while the receiver held its answers, then sent with nothing else to do. */
  backlog: {
    written: number
    delivered: number
    drainSeconds: number
    deliveriesPerSecond: number
  }
  /** Deliveries that arrived a second time (at least once allows it; none is expected here). */
  duplicates: number
}

export interface StreamBenchResult {
  streams: number
  opened: number
  refused: number
  posts: number
  frames: number
  framesPerSecond: number
  p50Ms: number | null
  p99Ms: number | null
  maxMs: number | null
  peakRssMb: number
  rssBeforeStreamsMb: number
}

const STREAMS = 1_000
const STREAM_POSTS = 100
const WRITERS = 10
const DRAIN_TIMEOUT_MS = 120_000

async function postJson(url: string, token: string, body: unknown): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`bench: ${url} answered ${response.status} ${await response.text()}`)
  return response
}

/**
 * A receiver that answers 204 and notes each delivery's id, arrival and lag after the change;
 * while `holding`, it keeps its answers back (the dispatcher waits on them, up to its timeout).
 */
async function startReceiver() {
  let arrivals: { at: number; lagMs: number }[] = []
  const ids = new Set<string>()
  let duplicates = 0
  let held: http.ServerResponse[] = []
  let holding = false
  const server = http.createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const at = Date.now()
      const id = String(request.headers['webhook-id'])
      if (ids.has(id)) duplicates += 1
      else arrivals.push({ at, lagMs: at - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp) })
      ids.add(id)
      if (holding) held.push(response)
      else response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** Starts a phase: forgets the arrivals so far (not the ids, which tell duplicates). */
    startPhase(hold: boolean) {
      arrivals = []
      holding = hold
    },
    release() {
      holding = false
      for (const response of held) response.writeHead(204).end()
      held = []
    },
    arrivals: () => arrivals,
    duplicates: () => duplicates,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * Waits until `count` deliveries arrived and a second passed without another: autocannon's
 * count leaves out the requests still in flight when it stops.
 */
async function settle(arrivals: () => { at: number }[], count: number): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS
  const quietSince = () => arrivals().at(-1)?.at ?? 0
  while (Date.now() < deadline && (arrivals().length < count || Date.now() - quietSince() < 1_000)) await new Promise((resolve) => setTimeout(resolve, 50))
}

/**
 * One endpoint subscribed to post.created, and WRITERS connections creating posts: first with
 * the receiver answering at once (the lag from write to delivery), then with the receiver
 * holding its answers until the writers stop, so a backlog builds and is sent with the core to
 * itself (the dispatcher's own rate). Every delivery is an HTTP request to a receiver in this
 * process and rows updated, on the server's one core.
 */
export async function benchWebhooks(tools: EventsBenchTools): Promise<WebhookBenchResult> {
  const receiver = await startReceiver()
  const server = await tools.startService({ WEBHOOK_ALLOW_PRIVATE: 'true' })
  try {
    const token = await tools.login(server.url)
    await postJson(`${server.url}/api/v2/admin/webhooks`, token, { url: receiver.url, events: ['post.created'], description: 'benchmark' })
    // Under the dispatcher's 10 s timeout, which a held answer must not reach.
    const duration = Math.min(tools.durationSeconds, 5)
    const writePosts = async () => {
      const writes = await tools.load(
        {
          url: server.url,
          path: '/services/v1/posts/',
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: { title: 'Delivered post', text: 'Written for the webhook benchmark {n}.' },
          connections: WRITERS,
          duration,
        },
        server.process.pid as number,
      )
      return { written: (writes.total ?? 0) - writes.non2xx, perSecond: Math.round(writes.requestsPerSecond) }
    }

    receiver.startPhase(false)
    const liveWrites = await writePosts()
    await settle(receiver.arrivals, liveWrites.written)
    const live = receiver.arrivals()
    const lags = live.map((arrival) => arrival.lagMs).sort((a, b) => a - b)
    const liveSeconds = ((live.at(-1)?.at ?? 0) - (live[0]?.at ?? 0)) / 1000

    receiver.startPhase(true)
    const backlogWrites = await writePosts()
    const released = Date.now()
    receiver.release()
    await settle(receiver.arrivals, backlogWrites.written)
    const backlog = receiver.arrivals()
    const drainSeconds = ((backlog.at(-1)?.at ?? released) - released) / 1000
    const sentAfterRelease = backlog.filter((arrival) => arrival.at >= released).length

    return {
      writers: WRITERS,
      live: {
        written: liveWrites.written,
        writesPerSecond: liveWrites.perSecond,
        delivered: live.length,
        deliveriesPerSecond: Math.round(live.length / Math.max(0.001, liveSeconds)),
        lagP50Ms: nearestRank(lags, 0.5) ?? 0,
        lagP99Ms: nearestRank(lags, 0.99) ?? 0,
      },
      backlog: {
        written: backlogWrites.written,
        delivered: backlog.length,
        drainSeconds: Math.round(drainSeconds * 10) / 10,
        deliveriesPerSecond: Math.round(sentAfterRelease / Math.max(0.001, drainSeconds)),
      },
      duplicates: receiver.duplicates(),
    }
  } finally {
    await server.stop()
    await receiver.close()
  }
}

/**
 * STREAMS anonymous streams held by a process on the load generator's core, then STREAM_POSTS
 * posts written five at a time: how long each post takes to reach every stream, after the
 * moment it was written, and how many frames a second the service sends.
 */
export async function benchStreamFanOut(tools: EventsBenchTools): Promise<StreamBenchResult> {
  const server = await tools.startService({ EVENT_STREAMS_PER_ADDRESS: String(STREAMS * 2) })
  const pid = server.process.pid as number
  const rssBeforeStreamsMb = Math.round(tools.rssMb(pid))
  let peakRssMb = rssBeforeStreamsMb
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, Math.round(tools.rssMb(pid)))), 100)
  try {
    const token = await tools.login(server.url)
    const spec = { url: `${server.url}/api/v2/events/stream`, streams: STREAMS, expected: STREAM_POSTS, timeoutSeconds: 60 }
    const [command, commandArgs] = tools.pinned(1, process.execPath, [path.join(import.meta.dirname, 'stream-clients.mjs'), JSON.stringify(spec)])
    const clients = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    const ready = new Promise<void>((resolve, reject) => {
      clients.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.startsWith('ready\n')) resolve()
      })
      clients.once('exit', () => reject(new Error(`stream clients exited early: ${output}`)))
    })
    const exited = new Promise((resolve) => clients.once('exit', resolve))
    await ready
    for (let written = 0; written < STREAM_POSTS; written += 5) {
      await Promise.all(Array.from({ length: 5 }, (_, k) => postJson(`${server.url}/services/v1/posts/`, token, { title: `Streamed ${written + k}`, text: 'Written for the stream benchmark.' })))
    }
    await exited
    const result = JSON.parse(output.slice('ready\n'.length)) as { opened: number; refused: number; frames: number; p50: number | null; p99: number | null; max: number | null; spanMs: number }
    return {
      streams: STREAMS,
      opened: result.opened,
      refused: result.refused,
      posts: STREAM_POSTS,
      frames: result.frames,
      framesPerSecond: Math.round(result.frames / Math.max(0.001, result.spanMs / 1000)),
      p50Ms: result.p50,
      p99Ms: result.p99,
      maxMs: result.max,
      peakRssMb,
      rssBeforeStreamsMb,
    }
  } finally {
    clearInterval(sampler)
    await server.stop()
  }
}
