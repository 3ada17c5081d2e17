// OpenTelemetry traces with OTEL_EXPORTER_OTLP_ENDPOINT set, caught by an in-memory exporter: a
// server span per request named by route template that continues a W3C traceparent, and the
// request's database queries as its children. Without the setting there is no tracing at all.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { seedAndLogin, seedUser,V2 } from '../helpers/users.js'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_SPAN_ID = '00f067aa0ba902b7'

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const exporter = new InMemorySpanExporter()
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SERVICE_NAME: 'ups-test' }, undefined, { spanExporter: exporter })
  })
  afterAll(() => t.close())

  const serverSpans = () => exporter.getFinishedSpans().filter((span) => span.kind === 1)
  const childrenOf = (parent: ReadableSpan) => exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId)

  it('continues the caller’s trace in a span named by the route template, with the queries inside it', async () => {
    const user = await seedUser(t.app)
    exporter.reset()
    const response = await t.app.inject({ url: `${V2}/users/${user.id}`, headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toBe(TRACE_ID)

    const [span] = serverSpans()
    expect(span?.name).toBe('GET /api/v2/users/{user_id}')
    expect(span?.spanContext().traceId).toBe(TRACE_ID)
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID)
    expect(span?.attributes).toMatchObject({ 'http.route': '/api/v2/users/{user_id}', 'http.response.status_code': 200, 'url.path': `${V2}/users/${user.id}` })
    expect(span?.resource.attributes['service.name']).toBe('ups-test')

    const queries = childrenOf(span!)
    expect(queries.length).toBeGreaterThanOrEqual(1)
    for (const query of queries) {
      expect(query.spanContext().traceId).toBe(TRACE_ID)
      expect(query.attributes['db.query.text']).toEqual(expect.any(String))
    }
    expect(queries.some((query) => query.name.startsWith('SELECT') && String(query.attributes['db.query.text']).includes('"users"'))).toBe(true)
    // Values travel as parameters: the span holds the statement, never the data.
    expect(queries.every((query) => !String(query.attributes['db.query.text']).includes(user.email))).toBe(true)
  })

  it('traces the queries of authentication and of a write inside the request', async () => {
    const writer = await seedAndLogin(t.app)
    exporter.reset()
    const response = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers: writer.headers, payload: { title: 'Traced', text: 'in a span' } })
    expect(response.statusCode).toBe(201)
    const [span] = serverSpans()
    expect(span?.name).toBe('POST /api/v2/posts')
    const operations = childrenOf(span!).map((query) => query.name.split(' ')[0])
    expect(operations).toContain('SELECT')
    expect(operations).toContain('INSERT')
  })

  it('names every unknown path alike', async () => {
    exporter.reset()
    await t.app.inject({ url: '/no/such/path/12345' })
    expect(serverSpans().map((span) => span.name)).toEqual(['GET (unmatched)'])
  })
})

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const exporter = new InMemorySpanExporter()
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({}, undefined, { spanExporter: exporter })
  })
  afterAll(() => t.close())

  it('makes no spans', async () => {
    await t.app.inject({ url: `${V2}/users/` })
    expect(exporter.getFinishedSpans()).toEqual([])
    expect(t.app.hasPlugin('tracing')).toBe(false)
  })
})
