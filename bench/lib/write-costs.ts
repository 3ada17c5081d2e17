// `--only write-costs`: what the search index adds to writing a post, and what keeping a revision
// adds to an edit of its text, measured in one process in the same rounds: the service is built
// in the benchmark's own process on the seeded database, and each round sends a batch of requests
// with the part switched on and a batch with it switched off (the service's collaborator replaced
// by one that does nothing), alternating which goes first. Requests go one at a time through
// Fastify's inject, so a figure is one request's own time, HTTP parsing and all; separate
// processes measured in turn differed by 20% from one run to the next, more than what is measured.
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createLogger } from '../../src/logger.js'

export interface WriteCostRow {
  name: string
  /** Median of the rounds, µs of wall time a request. */
  withPart: number
  withoutPart: number
  /** withPart / withoutPart − 1. */
  added: number
  rounds: { withPart: number[]; withoutPart: number[] }
}

const ROUNDS = 8
const BATCH = 300
/** A 2 KB post, as the search benchmark writes. */
const PROSE = 'Search engines rank documents by relevance, and a good one finds what you meant. '.repeat(26)

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function benchWriteCosts(env: Record<string, string>, password: string): Promise<WriteCostRow[]> {
  const app = await buildApp({ config: loadConfig(env), secretKey: env.SECRET_KEY!, logger: createLogger('silent'), prepare: false })
  await app.ready()
  try {
    const login = await app.inject({ method: 'POST', url: '/api/v2/login', payload: { username: 'u3', password } })
    const headers = { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` }
    // The service's collaborators, swapped per batch: a test double would measure something else.
    const service = app.services.posts as unknown as { searchIndex: unknown; keepRevision: unknown }
    const index = service.searchIndex
    const keepRevision = service.keepRevision
    const parts = {
      index: { on: () => (service.searchIndex = index), off: () => (service.searchIndex = { in: () => ({ indexPostText: async () => {} }) }) },
      revision: { on: () => (service.keepRevision = keepRevision), off: () => (service.keepRevision = async () => {}) },
    }
    const edited = (await app.inject({ method: 'POST', url: '/api/v2/posts', headers, payload: { title: 'Edited', text: PROSE } })).json<{ id: number }>().id
    let n = 0
    const requests = {
      create: () => app.inject({ method: 'POST', url: '/api/v2/posts', headers, payload: { title: `Prose ${++n}`, text: PROSE } }),
      edit: () => app.inject({ method: 'PATCH', url: `/api/v2/posts/${edited}`, headers, payload: { text: `${PROSE} ${++n}` } }),
    }
    async function batch(request: () => Promise<{ statusCode: number; body: string }>): Promise<number> {
      const start = process.hrtime.bigint()
      for (let i = 0; i < BATCH; i++) {
        const response = await request()
        if (response.statusCode >= 300) throw new Error(`write-costs: ${response.statusCode} ${response.body}`)
      }
      return Number(process.hrtime.bigint() - start) / 1000 / BATCH
    }
    const cases = [
      { name: 'create, 2 KB of prose: its search index entry', request: requests.create, part: parts.index },
      // An edit of the text also writes its index entry, in both batches.
      { name: 'edit of the text, 2 KB: the revision it keeps', request: requests.edit, part: parts.revision },
    ]
    const rows: WriteCostRow[] = []
    for (const { name, request, part } of cases) {
      await batch(request) // warm-up
      const rounds = { withPart: [] as number[], withoutPart: [] as number[] }
      for (let round = 0; round < ROUNDS; round++) {
        for (const on of round % 2 === 0 ? [true, false] : [false, true]) {
          if (on) part.on()
          else part.off()
          rounds[on ? 'withPart' : 'withoutPart'].push(await batch(request))
        }
        part.on()
      }
      const withPart = median(rounds.withPart)
      const withoutPart = median(rounds.withoutPart)
      rows.push({ name, withPart, withoutPart, added: withPart / withoutPart - 1, rounds })
      console.log(`   ${name}: ${withPart.toFixed(0)} µs with it, ${withoutPart.toFixed(0)} µs without (+${((withPart / withoutPart - 1) * 100).toFixed(0)}%), medians of ${ROUNDS} alternating rounds of ${BATCH}`)
    }
    return rows
  } finally {
    await app.close()
  }
}
