// Prometheus metrics (prom-client), on when METRICS_PORT is set: requests by method, route
// template (never the raw URL; unknown paths are one label) and status, with their duration;
// the process's default metrics; PostgreSQL pool use; logins; rate-limit refusals; the mail
// outbox; failures of the revocation and rate-limit stores. Served on a listener of its own
// (src/metrics-server.ts), never on the public port.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics,Counter, Gauge, Histogram, Registry } from 'prom-client'

import type { DatabaseHandle } from '../db/database.js'
import type { ReplicaSet } from '../db/replicas/replica-set.js'
import { routeTemplateOf } from './route-template.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics registry, when METRICS_PORT is set. */
    metrics: Registry | null
    /** Counts an answer to an unknown path, when metrics are on. */
    countUnmatched?: (method: string, seconds: number) => void
  }
}

export interface MetricsOptions {
  database: DatabaseHandle
  replicas?: ReplicaSet | undefined
}

const UNMATCHED = '(unmatched)'

export default fp<MetricsOptions>(
  async (app, { database, replicas }) => {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry })
    app.decorate('metrics', registry)
    const { services } = app

    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    })
    const durations = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    })
    const rejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429, by route template',
      labelNames: ['route'] as const,
      registers: [registry],
    })
    const logins = new Counter({ name: 'logins_total', help: 'Login attempts, by result', labelNames: ['result'] as const, registers: [registry] })
    const storeErrors = new Counter({
      name: 'store_errors_total',
      help: 'Failures of the shared revocation and rate-limit stores',
      labelNames: ['store'] as const,
      registers: [registry],
    })
    services.signals.on('login', (result) => logins.inc({ result }))
    services.signals.on('store-error', (store) => storeErrors.inc({ store }))
    const captchas = new Counter({ name: 'captcha_checks_total', help: 'CAPTCHAs asked for, passed and failed, by door', labelNames: ['outcome', 'door'] as const, registers: [registry] })
    const breached = new Counter({ name: 'breached_passwords_refused_total', help: 'New passwords refused as found in breaches', registers: [registry] })
    const blocked = new Counter({ name: 'email_domains_blocked_total', help: 'Addresses refused for their domain at sign-up or email change', registers: [registry] })
    services.signals.on('captcha', (outcome, door) => captchas.inc({ outcome, door }))
    services.signals.on('password-breached', () => breached.inc())
    services.signals.on('email-domain-blocked', () => blocked.inc())

    const outboxPending = new Gauge({ name: 'mail_outbox_pending', help: 'Mail messages waiting to be sent', registers: [registry] })
    const outboxAge = new Gauge({
      name: 'mail_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest message waiting to be sent (0 when none)',
      registers: [registry],
      async collect() {
        const { pending, oldestCreatedAt } = await services.mail.pendingStats()
        outboxPending.set(pending)
        this.set(oldestCreatedAt === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldestCreatedAt)) / 1000))
      },
    })
    void outboxAge
    const { poolStats } = database
    if (poolStats) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'PostgreSQL pool connections, by state (in_use, idle, waiting: requests queued for one)',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          const { total, idle, waiting } = poolStats()
          this.set({ state: 'in_use' }, total - idle)
          this.set({ state: 'idle' }, idle)
          this.set({ state: 'waiting' }, waiting)
        },
      })
    }

    if (replicas) {
      new Counter({
        name: 'db_replica_safe_reads_total',
        help: 'Reads repositories declare replica-safe, by where they ran (primary, or a replica by name)',
        labelNames: ['target'] as const,
        registers: [registry],
        collect() {
          this.reset()
          this.inc({ target: 'primary' }, replicas.primaryReads)
          for (const { name, reads } of replicas.stats()) this.inc({ target: name }, reads)
        },
      })
      new Counter({
        name: 'db_replica_fallbacks_total',
        help: "Replica-safe reads of GETs that ran on the primary: no replica within the lag allowed or caught up with the caller's last write, or a replica failed",
        registers: [registry],
        collect() {
          this.reset()
          this.inc(replicas.fallbacks)
        },
      })
      new Gauge({
        name: 'db_replica_lag_seconds',
        help: 'How far each replica is behind the primary (+Inf: not answering or not a standby; not read from past DATABASE_REPLICA_MAX_LAG_MS)',
        labelNames: ['replica'] as const,
        registers: [registry],
        collect() {
          for (const { name, lagMs } of replicas.stats()) this.set({ replica: name }, lagMs / 1000)
        },
      })
    }

    // Counted per route by a hook added as each route is registered, so the route template is
    // known without asking the request, and label children are looked up once per status.
    const observerFor = (route: string) => {
      const children = new Map<string, { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof durations.labels> }>()
      return (method: string, status: number, seconds: number) => {
        const key = `${method} ${status}`
        let child = children.get(key)
        if (child === undefined) {
          const labels = { method, route, status_code: status }
          child = { count: requests.labels(labels), time: durations.labels(labels) }
          children.set(key, child)
        }
        child.count.inc()
        child.time.observe(seconds)
        if (status === 429) rejections.inc({ route })
      }
    }

    app.addHook('onRoute', (route) => {
      const observe = observerFor(routeTemplateOf(route.url))
      const existing = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]
      route.onResponse = [
        ...existing,
        function countResponse(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
          observe(request.method, reply.statusCode, reply.elapsedTime / 1000)
          done()
        },
      ]
    })
    // Unknown paths are one label; the 404 handler reports them (src/plugins/error-handler.ts).
    const unmatched = observerFor(UNMATCHED)
    app.decorate('countUnmatched', (method: string, seconds: number) => unmatched(method, 404, seconds))
  },
  { name: 'metrics', dependencies: ['app-context'] },
)
