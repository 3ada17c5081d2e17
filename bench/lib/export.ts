// A data export in the benchmark: users with 1,000, 100,000 and 400,000 posts, each exported
// through the service as `npm start` runs it (POST /users/me/export, then the job builds the ZIP
// into the local store). Reports the time from the request to `ready`, the ZIP's size and the
// service's resident memory before and at its peak during the build: flat memory means the peak
// does not grow with the posts.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

import type { SeedTarget } from './seed.js'
import { seedPostsOf } from './seed.js'

export interface ExportBenchTools {
  startService(extra: Record<string, string>): Promise<{ url: string; stop(): Promise<void>; process: { pid?: number } }>
  login(url: string, username: string): Promise<string>
}

export interface ExportBenchRun {
  posts: number
  items: number
  ms: number
  zipBytes: number
  rssBeforeMb: number
  rssPeakMb: number
}

/** The users whose posts are exported (seeded as u2 and u3), and how many posts each gets. */
const RUNS = [
  { userId: 2, username: 'u2', posts: 1_000 },
  { userId: 3, username: 'u3', posts: 100_000 },
  { userId: 4, username: 'u4', posts: 400_000 },
]

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : 0
}

export async function benchExport(target: SeedTarget, tools: ExportBenchTools): Promise<ExportBenchRun[]> {
  for (const run of RUNS) await seedPostsOf(target, run.userId, run.posts)
  const server = await tools.startService({})
  const pid = server.process.pid!
  const results: ExportBenchRun[] = []
  try {
    for (const run of RUNS) {
      const token = await tools.login(server.url, run.username)
      const headers = { authorization: `Bearer ${token}` }
      const rssBeforeMb = rssMb(pid)
      let rssPeakMb = rssBeforeMb
      const start = performance.now()
      const asked = await fetch(`${server.url}/api/v2/users/me/export`, { method: 'POST', headers })
      if (asked.status !== 202) throw new Error(`bench: POST /users/me/export answered ${asked.status} ${await asked.text()}`)
      const { id } = (await asked.json()) as { id: number }
      let state: { status: string; size: number; items_written: number } = { status: 'queued', size: 0, items_written: 0 }
      for (let polls = 0; state.status !== 'ready'; polls++) {
        if (state.status === 'failed' || polls > 60_000) throw new Error(`bench: the export ended ${state.status}`)
        rssPeakMb = Math.max(rssPeakMb, rssMb(pid))
        await sleep(20)
        state = (await (await fetch(`${server.url}/api/v2/users/me/exports/${id}`, { headers })).json()) as typeof state
      }
      const ms = performance.now() - start
      results.push({ posts: run.posts, items: state.items_written, ms: Math.round(ms), zipBytes: state.size, rssBeforeMb: Math.round(rssBeforeMb), rssPeakMb: Math.round(rssPeakMb) })
      console.log(`   export of ${run.posts} posts: ${Math.round(ms)} ms, ${state.items_written} items, ZIP ${(state.size / 1e6).toFixed(1)} MB, RSS ${Math.round(rssBeforeMb)} → peak ${Math.round(rssPeakMb)} MB`)
    }
  } finally {
    await server.stop()
  }
  return results
}
