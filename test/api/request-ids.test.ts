// Every answer names its request (X-Request-Id), and every log line about the request carries
// the same id: a W3C traceparent's trace id when the caller sends one, a fresh id otherwise.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createTestDatabase,TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { V1 } from '../helpers/users.js'

let app: Awaited<ReturnType<typeof buildApp>>
let drop: () => Promise<void>
const lines: { reqId?: string; msg: string }[] = []

beforeAll(async () => {
  const database = await createTestDatabase()
  drop = database.drop
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  app = await buildApp({ config: loadConfig({ ...TEST_ENV, ...database.env, LOG_LEVEL: 'info' }), secretKey: TEST_SECRET_KEY, logger })
})
afterAll(async () => {
  await app.close()
  await drop()
})

describe('request ids', () => {
  it('take the trace id of a traceparent header, into the answer and the log', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const response = await app.inject({ url: `${V1}/users/999`, headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } })
    expect(response.statusCode).toBe(404)
    expect(response.headers['x-request-id']).toBe(traceId)
    expect(lines.filter((line) => line.reqId === traceId).map((line) => line.msg)).toContain('request completed')
  })

  it('are fresh and distinct without one (or with a malformed one), even on router errors', async () => {
    const ids = new Set<string>()
    for (const headers of [{}, { traceparent: 'garbage' }, { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }]) {
      const response = await app.inject({ url: `${V1}/posts/`, headers })
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/)
      ids.add(String(response.headers['x-request-id']))
    }
    expect(ids.size).toBe(3)
    expect((await app.inject({ url: `${V1}/users/%E0%A4%A` })).headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/)
  })
})
