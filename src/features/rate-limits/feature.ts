// Rate limits: per-tier rules, the limiter's counters and the budgets of credential flows.
import type { Job } from '../../shared/scheduler.js'
import { VERSIONS } from '../../versions.js'
import { type Feature, requestHook, routes } from '../feature.js'
import { type CounterStore, DatabaseCounterStore, RedisCounterStore } from './counter-store.js'
import { rateLimitsErrorCodes } from './errors.js'
import { limitBuckets } from './limit-buckets.js'
import rateLimitRulesRoutes from './rate-limit-rules.routes.js'
import { rateLimitsFunctions, rateLimitsReadTargets } from './rate-limits.repository.js'
import { RULES_REFRESH_MS } from './rate-limits.service.js'
import { RateLimitService } from './rate-limits.service.js'
import requestLimits from './request-limits.http.js'
import { FLUSH_MS } from './shared-limiter.js'

interface RateLimitsServices {
  rateLimits: RateLimitService
  /** The limiter's counters (Redis, or the database), which the CAPTCHA's risk signals share. */
  limitCounters: CounterStore
}

const rules = routes(rateLimitRulesRoutes, { prefix: '/tiers' })
export const rateLimitsFeature: Feature<RateLimitsServices> = {
  name: 'rate-limits',
  requestHooks: [requestHook('limits', requestLimits)],
  errors: rateLimitsErrorCodes,
  needs: ['tiers'],
  create({ config, redis, logger, bind, jobs, signals, peers: { tiers } }) {
    const repository = bind(rateLimitsFunctions, rateLimitsReadTargets)
    const limitCounters = redis ? new RedisCounterStore(redis) : new DatabaseCounterStore(repository)
    // Asked for on every request counted in memory: the job is looked up once, not by name each time.
    let flush: Job | undefined
    const { rateLimits: settings } = config
    const options = {
      anonymous: settings.anonymous,
      fallback: settings.fallback,
      buckets: limitBuckets(config),
      failMode: settings.failMode,
      versionPrefixes: Object.values(VERSIONS).map((version) => version.prefix),
      ipv6PrefixBits: settings.ipv6PrefixBits,
    }
    const rateLimits = new RateLimitService({ repository, store: limitCounters, tiers, logger, options, signals, flushSoon: () => (flush ??= jobs.job('limiter-flush'))?.soon() })
    return { rateLimits, limitCounters }
  },

  migrations: ['2026-11-22-03-rate-limit-rules-and-api-keys'],
  routes: { v1: [rules], v2: [rules] },
  jobs: ({ services, background }) => [
    { name: 'rate-limit-rules', intervalMs: RULES_REFRESH_MS, runAtStart: false, run: () => services.rateLimits.refreshRules() },
    // Asked for (soon()) by every request counted in memory; the last flush waits for the relays (stop order).
    { name: 'limiter-flush', intervalMs: FLUSH_MS, idleIntervalMs: background.streamIdleMs, jitter: 0, stopOrder: 2, run: () => services.rateLimits.flushCounts() },
  ],
  prune: (services) => services.rateLimits.prune(),
}
