// Abuse protection in the benchmark: password logins and sign-ups with each check on (a CAPTCHA
// provider in adaptive mode on its low-risk path, breached passwords against a local range API
// with the prefix cached, disposable-domain blocking) against the same with every check off, in
// alternating rounds on the service as `npm start` runs it. The verdict: each within 5% of off.
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { median } from './percentile.mjs'

export interface AbuseBenchTools {
  startService(extra: Record<string, string>): Promise<{ url: string; stop(): Promise<void>; process: { pid?: number } }>
  login(url: string): Promise<string>
  /** User + system CPU time of a process so far, in µs. */
  cpuMicros(pid: number): number | undefined
  rounds: number
}

type Setup = 'off' | 'captcha' | 'breached' | 'disposable'

export interface AbuseBenchResult {
  /** Requests a second, the median of the rounds, per setup and flow. */
  perSecond: Record<Setup, { login: number; signup: number }>
  /** Each setup's rate as a share of off's. */
  ratios: Record<Exclude<Setup, 'off'>, { login: number; signup: number }>
  /** The service process's CPU per request (µs), the median of the rounds: steadier than a rate on a shared machine. */
  cpuMicrosPerRequest: Record<Setup, { login: number; signup: number }>
  /** Each setup's CPU per request over off's (above 1 costs more). */
  cpuRatios: Record<Exclude<Setup, 'off'>, { login: number; signup: number }>
}

const LOGINS = 60
const SIGNUPS = 30
const CONCURRENCY = 4
const PASSWORD = 'a bench password nobody leaked 7'

/** A range API that knows no breached password: every answer is padding, as HIBP pads. */
async function startRangeApi(): Promise<{ url: string; close(): void }> {
  const padding = Array.from({ length: 800 }, (_, index) => `${createHash('sha1').update(String(index)).digest('hex').slice(0, 35).toUpperCase()}:0`).join('\r\n')
  const server = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(padding))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

async function timedRequests(count: number, send: (index: number) => Promise<Response>): Promise<number> {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let index = next++; index < count; index = next++) {
        const answer = await send(index)
        if (answer.status >= 300) throw new Error(`bench: answered ${answer.status} ${await answer.text()}`)
        await answer.arrayBuffer()
      }
    }),
  )
  return count / ((performance.now() - start) / 1000)
}

export async function benchAbuse(tools: AbuseBenchTools): Promise<AbuseBenchResult> {
  const range = await startRangeApi()
  const settings: Record<Setup, Record<string, string>> = {
    off: {},
    // A provider set, in adaptive mode: a request with no risk is let through after reading the counts.
    captcha: { CAPTCHA_PROVIDER: 'turnstile', CAPTCHA_SECRET: 'bench', CAPTCHA_SITE_KEY: 'bench', CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/never', CAPTCHA_SIGNUP_THRESHOLD: '100000' },
    breached: { BREACHED_PASSWORDS: 'hibp', HIBP_RANGE_URL: range.url },
    disposable: { BLOCK_DISPOSABLE_EMAILS: 'true' },
  }
  const empty = () => ({ login: [] as number[], signup: [] as number[] })
  const rounds: Record<Setup, { login: number[]; signup: number[] }> = { off: empty(), captcha: empty(), breached: empty(), disposable: empty() }
  const cpu: Record<Setup, { login: number[]; signup: number[] }> = { off: empty(), captcha: empty(), breached: empty(), disposable: empty() }
  let run = 0
  try {
    for (let round = 0; round < tools.rounds; round++) {
      for (const setup of Object.keys(settings) as Setup[]) {
        const server = await tools.startService(settings[setup])
        try {
          const prefix = `b${run++}x${Date.now().toString(36)}`
          const signUp = (index: number) =>
            fetch(`${server.url}/api/v2/signup`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'Bench', username: `${prefix}_${index}`, email: `${prefix}_${index}@example.com`, password: PASSWORD, accept_terms: true }),
            })
          // One sign-up first: the account the logins use, and (breached) the prefix cached.
          await (await signUp(0)).arrayBuffer()
          const pid = server.process.pid as number
          const measured = async (flow: 'login' | 'signup', count: number, send: (index: number) => Promise<Response>) => {
            const before = tools.cpuMicros(pid) ?? 0
            rounds[setup][flow].push(await timedRequests(count, send))
            cpu[setup][flow].push(((tools.cpuMicros(pid) ?? 0) - before) / count)
          }
          await measured('signup', SIGNUPS, (index) => signUp(index + 1))
          const body = JSON.stringify({ username: `${prefix}_0`, password: PASSWORD })
          await measured('login', LOGINS, () => fetch(`${server.url}/api/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    range.close()
  }
  const perSecond = Object.fromEntries(Object.entries(rounds).map(([setup, flows]) => [setup, { login: median(flows.login), signup: median(flows.signup) }])) as AbuseBenchResult['perSecond']
  const ratio = (setup: Exclude<Setup, 'off'>) => ({ login: perSecond[setup].login / perSecond.off.login, signup: perSecond[setup].signup / perSecond.off.signup })
  const ratios = { captcha: ratio('captcha'), breached: ratio('breached'), disposable: ratio('disposable') }
  const cpuMicrosPerRequest = Object.fromEntries(Object.entries(cpu).map(([setup, flows]) => [setup, { login: median(flows.login), signup: median(flows.signup) }])) as AbuseBenchResult['cpuMicrosPerRequest']
  const cpuRatio = (setup: Exclude<Setup, 'off'>) => ({ login: cpuMicrosPerRequest[setup].login / cpuMicrosPerRequest.off.login, signup: cpuMicrosPerRequest[setup].signup / cpuMicrosPerRequest.off.signup })
  const cpuRatios = { captcha: cpuRatio('captcha'), breached: cpuRatio('breached'), disposable: cpuRatio('disposable') }
  for (const [setup, rates] of Object.entries(perSecond)) {
    const used = cpuMicrosPerRequest[setup as Setup]
    const share = setup === 'off' ? '' : ` (${ratios[setup as Exclude<Setup, 'off'>].login.toFixed(2)}, ${ratios[setup as Exclude<Setup, 'off'>].signup.toFixed(2)} of off; CPU ${cpuRatios[setup as Exclude<Setup, 'off'>].login.toFixed(2)}, ${cpuRatios[setup as Exclude<Setup, 'off'>].signup.toFixed(2)} of off)`
    console.log(`   ${setup}: login ${rates.login.toFixed(1)}/s ${Math.round(used.login)} µs CPU, sign-up ${rates.signup.toFixed(1)}/s ${Math.round(used.signup)} µs CPU${share}`)
  }
  return { perSecond, ratios, cpuMicrosPerRequest, cpuRatios }
}
