// Live tokens never reach a log or a trace: every URL the service writes down (the access log,
// the aborted-request line, a server span's url.path and url.query) goes through redactUrl,
// which keeps the values of known harmless parameters only. The mailed links' pages, the event
// stream's ticket and a provider callback's code and state are opened with recognisable secrets,
// and neither the log lines nor the spans may hold one.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { REDACTED, redactUrl } from '../../src/shared/redact-url.js'
import { createTestDatabase, TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { V2 } from '../helpers/users.js'

let app: Awaited<ReturnType<typeof buildApp>>
let drop: () => Promise<void>
const lines: string[] = []
const exporter = new InMemorySpanExporter()

beforeAll(async () => {
  const database = await createTestDatabase()
  drop = database.drop
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
  const config = loadConfig({ ...TEST_ENV, ...database.env, LOG_LEVEL: 'info', EMAIL_LOGIN: 'on', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })
  app = await buildApp({ config, secretKey: TEST_SECRET_KEY, logger, spanExporter: exporter })
})
afterAll(async () => {
  await app.close()
  await drop()
})

const SECRETS = Array.from({ length: 7 }, (_, index) => `live-secret-${index}-${'x'.repeat(20)}`)

describe('URLs in logs and traces', () => {
  it('keep a token, ticket, code or state of any mailed link or callback out of the log and the spans', async () => {
    const [token1, token2, token3, ticket, code, state, unknown] = SECRETS
    const urls = [
      `/account/email-login?token=${token1}`,
      `/account/reset-password?token=${token2}`,
      `/account/verify-email?token=${token3}&page=1`,
      `${V2}/events/stream?ticket=${ticket}`,
      `${V2}/auth/corp/callback?code=${code}&state=${state}`,
      `${V2}/posts/?page=2&limit=5&some_new_parameter=${unknown}`,
    ]
    for (const url of urls) await app.inject({ method: url.includes('/events/') ? 'HEAD' : 'GET', url })
    const log = lines.join('\n')
    const spans = JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))
    for (const secret of SECRETS) {
      expect(log).not.toContain(secret)
      expect(spans).not.toContain(secret)
    }
    expect(log).toContain(`/account/email-login?token=${REDACTED}`)
    expect(log).toContain(`${V2}/posts/?page=2&limit=5&some_new_parameter=${REDACTED}`)
    expect(spans).toContain(`"url.query":"token=${REDACTED}&page=1"`)
  })
})

describe('redactUrl', () => {
  it('keeps the path and the harmless parameters, and hides every other value', () => {
    expect(redactUrl('/a/b')).toBe('/a/b')
    expect(redactUrl('/a?')).toBe('/a?')
    expect(redactUrl('/a?page=2&token=t')).toBe(`/a?page=2&token=${REDACTED}`)
    expect(redactUrl('/a?redirect_to=https%3A%2F%2Fapp%2F%3Fcode%3Dc&cursor=abc')).toBe(`/a?redirect_to=${REDACTED}&cursor=abc`)
    expect(redactUrl('/a?%74oken=t&search=x')).toBe(`/a?%74oken=${REDACTED}&search=x`)
    expect(redactUrl('/a?flag&%E0%A4%A=t')).toBe(`/a?flag&${REDACTED}`)
  })
})
