// The composition root: builds the whole service as one Fastify instance from its backends
// (database, Redis, services), plugins and every API version. server.ts listens; tests call
// buildApp and use app.inject.
import { randomBytes } from 'node:crypto'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { FastifyContextConfig, FastifyInstance } from 'fastify'
import Fastify from 'fastify'

import adminConsoleRoutes from './api/admin-console.routes.js'
import type { WayIn } from './api/common/protected-route.js'
import { bodyFieldsOf, changesSomething } from './api/common/route-shape.js'
import healthRoutes from './api/health.routes.js'
import { registerApiVersions, registerFeatureAppRoutes } from './api/index.js'
import versionsRoutes from './api/versions.routes.js'
import type { Backends } from './backends.js'
import { openBackends } from './backends.js'
import type { Config } from './config.js'
import { FEATURES, REQUEST_STAGES } from './features/index.js'
import type { Logger } from './logger.js'
import { createLogger } from './logger.js'
import accessLog from './plugins/access-log.js'
import appContext from './plugins/app-context.js'
import authentication from './plugins/authentication.js'
import canonicalHost from './plugins/canonical-host.js'
import cors from './plugins/cors.js'
import errorHandler, { handleFrameworkError } from './plugins/error-handler.js'
import { HandlersInFlight } from './plugins/handlers-in-flight.js'
import responseHeaders from './plugins/response-headers.js'
import type { SchemaCompilation } from './shared/validation/compiled-on-first-use.js'
import { serializerBuilder } from './shared/validation/compiled-on-first-use.js'
import { createValidatorCompiler } from './shared/validation/schema-validator.js'
import { HANDLER_DRAIN_MS } from './shutdown.js'

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024

/** One method of one route, as the route-table checks read it. */
export interface RouteTableEntry {
  method: string
  url: string
  protectedRoute: boolean
  wayIn: WayIn | undefined
  /** Needs a recent proof of identity (403 `reauthentication_required`). */
  reauthenticate: boolean
  /** Everything the route declared in its config (a feature's own access rule, such as an organization role). */
  config: Readonly<FastifyContextConfig>
  /** The fields its body schema names, at the top level (every branch of a union). */
  bodyFields: readonly string[]
  /** The largest body it reads, where it raises or lowers the app's JSON_BODY_LIMIT_BYTES. */
  bodyLimit: number | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, with what protectedRoute declared. */
    routeTable: readonly RouteTableEntry[]
  }
}

export interface AppOptions {
  config: Config
  secretKey: string
  /** By default one is made from LOG_LEVEL. */
  logger?: Logger
  /** Migrate and make sure the administrator exists (default); cluster workers leave it to the primary. */
  prepare?: boolean
  /** Backends opened by the caller (tests keep the database handle); the app closes them. */
  backends?: Backends
  /** With OTEL_EXPORTER_OTLP_ENDPOINT set: export spans here instead of over OTLP (tests). */
  spanExporter?: SpanExporter
  /** When each route's validators and serializers are compiled: on first use (default), or at start (the test that compiles them all). */
  compileSchemas?: SchemaCompilation
}

const trustHops = (count: number) => (_address: string, hop: number) => hop < count

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/

// New ids are 32 hex digits like a W3C trace id: a random half for this process, a counter for
// the request. Unique without a random draw per request (ids name log lines; they guard nothing).
const PROCESS_ID_PREFIX = randomBytes(8).toString('hex')
let requestCounter = 0n

/** The request id: the trace id of a W3C traceparent header when one comes, else a new one. */
function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const traceparent = request.headers.traceparent
  const traceId = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim())?.[1] : undefined
  if (traceId !== undefined && !/^0+$/.test(traceId)) return traceId
  requestCounter += 1n
  return PROCESS_ID_PREFIX + requestCounter.toString(16).padStart(16, '0')
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, secretKey } = options
  const logger = options.logger ?? createLogger(config.logLevel)
  const schemaCompilation = options.compileSchemas ?? 'on-first-use'
  const app = Fastify({
    logger: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    // A hop count trusts that many proxies in front of us (proxy-addr: hop 0 is the socket).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    requestTimeout: 60_000,
    return503OnClosing: true,
    // Logged with every line about the request and sent back as X-Request-Id.
    genReqId: requestIdOf,
    // Router errors (malformed URL, over-long parameter) go through the one error handler too.
    frameworkErrors: handleFrameworkError,
    schemaController: { compilersFactory: { buildSerializer: serializerBuilder(schemaCompilation) } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.setValidatorCompiler(createValidatorCompiler(schemaCompilation))
  // The API speaks JSON (and forms/multipart where declared); plain text gets a 415.
  app.removeContentTypeParser('text/plain')

  if (config.trustProxy === true) {
    logger.warn('TRUST_PROXY=true trusts every X-Forwarded-For hop: clients can choose their own address and escape per-address limits. Set a hop count (TRUST_PROXY=1) or the proxy addresses instead.')
  }
  const backends = options.backends ?? (await openBackends(config, secretKey, logger, { prepare: options.prepare ?? true }))
  const { database, services } = backends

  // A search index left in pieces (a bulk import, sign-ups) is merged as the service starts,
  // without holding up readiness; shutdown stops it between steps.
  const stopCompacting = new AbortController()
  let compacting: Promise<void> = Promise.resolve()
  // Every process runs the background jobs (services.jobs: relays, cleanup, the limiter's flush);
  // claiming keeps two from sending one mail or delivery.
  app.addHook('onReady', async () => {
    await services.mail.ready()
    await services.eventStreams.start()
    services.jobs.start()
    compacting = services
      .compactSearchIndex(stopCompacting.signal)
      .catch((error: unknown) => logger.warn({ err: error }, 'merging the search index failed'))
  })
  // Streams never end on their own: they end first, so the server can close.
  app.addHook('preClose', async () => {
    await services.eventStreams.stop()
  })
  const handlersInFlight = new HandlersInFlight()
  // The server has closed: no request is left to answer, but handlers of clients that went away may run on.
  app.addHook('onClose', async () => {
    const unfinished = await handlersInFlight.settled(HANDLER_DRAIN_MS)
    if (unfinished > 0) logger.warn({ handlers: unfinished }, 'shutting down with request handlers still running')
    stopCompacting.abort()
    await compacting
    await services.account.settle()
    await services.emailLogin.settle()
    await services.jobs.stop()
    services.mail.close()
    await services.passwords.close()
    await backends.close()
  })

  // Every protected route that changes something must say whether it adds a way into the
  // account, and what a support impersonation may do on it.
  const routeTable: RouteTableEntry[] = []
  app.decorate('routeTable', routeTable)
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat()
    const config = route.config ?? {}
    const changes = changesSomething(methods)
    if (config.protectedRoute && config.wayIn === undefined && changes) {
      throw new Error(`${methods.join(',')} ${route.url} must declare whether it adds a way into the account (protectedRoute's wayIn: 'adds' or 'none')`)
    }
    if (config.protectedRoute && config.impersonation === undefined && changes) {
      throw new Error(`${methods.join(',')} ${route.url} must declare what a support impersonation may do on it (protectedRoute's impersonation: 'allowed', 'refused' or 'ends')`)
    }
    const bodyFields = bodyFieldsOf(route.schema?.body)
    for (const method of methods) {
      routeTable.push({ method, url: route.url, protectedRoute: config.protectedRoute === true, wayIn: config.wayIn, reauthenticate: config.reauthenticate === true, config, bodyFields, bodyLimit: route.bodyLimit })
    }
    const handler = route.handler
    route.handler = function trackedHandler(this: FastifyInstance, request, reply) {
      return handlersInFlight.track(handler.call(this, request, reply))
    }
  })
  await app.register(appContext, { config, logger, services })
  if (backends.replicas) await app.register((await import('./plugins/read-consistency.js')).default, { replicas: backends.replicas })
  // Loaded only when configured: a service without them does not parse their packages at start.
  if (config.otel) await app.register((await import('./plugins/tracing.js')).default, { database, exporter: options.spanExporter })
  if (config.metrics) await app.register((await import('./plugins/metrics.js')).default, { database, replicas: backends.replicas })
  else app.decorate('metrics', null)
  await app.register(accessLog)
  await app.register(errorHandler)
  await app.register(responseHeaders, { perRouteHook: !config.rateLimits.enabled })
  await app.register(cors, { origins: config.corsOrigins, ownOrigin: new URL(config.mail.publicUrl).origin })
  if (config.nodeEnv === 'development') await app.register(canonicalHost, { publicUrl: config.mail.publicUrl })
  await app.register(authentication)
  // The slices' hooks on every request, by stage: what an impersonation may do, the limits, the doors.
  for (const stage of REQUEST_STAGES) for (const feature of FEATURES) for (const hook of feature.requestHooks ?? []) if (hook.stage === stage) await hook.register(app)

  await app.register(healthRoutes)
  await registerFeatureAppRoutes(app)
  await app.register(versionsRoutes)
  await registerApiVersions(app)
  if (config.adminConsole) await app.register(adminConsoleRoutes)
  return app
}
