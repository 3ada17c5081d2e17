// OpenTelemetry traces, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (app.ts registers this plugin
// only then, and its packages are imported here, so they cost nothing otherwise). One server
// span per request, named by method and route template and continuing a W3C traceparent; one
// span per database query inside it. Exported over OTLP/HTTP in batches.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

import type { DatabaseHandle } from '../db/database.js'
import { observeQueries } from '../db/query-observer.js'
import { redactUrl } from '../shared/redact-url.js'
import { routeTemplateOf } from './route-template.js'

export interface TracingOptions {
  database: DatabaseHandle
  /** Where spans go instead of OTLP (tests pass an in-memory exporter). */
  exporter?: SpanExporter
}

const UNMATCHED = '(unmatched)'

/** The statement's verb: SELECT, INSERT, UPDATE, DELETE, … */
const operationOf = (sql: string) => /^\s*(?:with\b[\s\S]*?\)\s*)?([a-z]+)/i.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'

export default fp<TracingOptions>(
  async (app, { database, exporter }) => {
    const settings = app.config.otel
    if (!settings) return
    const [api, sdk, { OTLPTraceExporter }, { resourceFromAttributes }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }] = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
    ])
    const { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, trace } = api

    const processor = exporter
      ? new sdk.SimpleSpanProcessor(exporter)
      : new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` }))
    const provider = new sdk.BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
      spanProcessors: [processor],
    })
    const tracer = provider.getTracer('user-post-service')
    // Kept to this app (no global registration): the request's context follows its async work.
    const contexts = new AsyncLocalStorageContextManager().enable()
    const propagator = new W3CTraceContextPropagator()
    const spans = new WeakMap<FastifyRequest, ReturnType<typeof tracer.startSpan>>()

    app.addHook('onRequest', (request, _reply, done) => {
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter)
      const route = request.routeOptions.url === undefined ? UNMATCHED : routeTemplateOf(request.routeOptions.url)
      // The query as the logs show it: a mailed link's token never reaches a trace either.
      const [path = '', query] = redactUrl(request.url).split(/\?(.*)/s, 2)
      const attributes = { 'http.request.method': request.method, 'http.route': route, 'url.path': path, ...(query ? { 'url.query': query } : {}) }
      const span = tracer.startSpan(`${request.method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent)
      spans.set(request, span)
      // The rest of the request (its hooks, handler and queries) runs inside the span's context.
      contexts.with(trace.setSpan(parent, span), done)
    })
    app.addHook('onError', async (request, _reply, error) => {
      spans.get(request)?.recordException(error)
    })
    app.addHook('onResponse', async (request, reply) => {
      const span = spans.get(request)
      if (!span) return
      span.setAttribute('http.response.status_code', reply.statusCode)
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    })

    observeQueries(database.db, (sql, startedAt, durationMs, error) => {
      const parent = contexts.active()
      // Queries outside a request (the mail outbox, pruning) would each be a trace of their own.
      if (trace.getSpan(parent) === undefined) return
      const span = tracer.startSpan(
        `${operationOf(sql)} ${database.dialect}`,
        { kind: SpanKind.CLIENT, startTime: startedAt, attributes: { 'db.system.name': database.dialect === 'postgres' ? 'postgresql' : 'sqlite', 'db.query.text': sql } },
        parent,
      )
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error))
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end(startedAt + durationMs)
    })

    app.addHook('onClose', async () => {
      await provider.shutdown()
      contexts.disable()
    })
  },
  { name: 'tracing' },
)
