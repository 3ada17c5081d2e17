// Rate limits: per-tier rules, the limiter's counters and the budgets of credential flows.
import { type Feature, routes } from '../feature.js'
import rateLimitRulesRoutes from './rate-limit-rules.routes.js'
import { RULES_REFRESH_MS } from './rate-limits.service.js'
import { FLUSH_MS } from './shared-limiter.js'

const rules = routes(rateLimitRulesRoutes, { prefix: '/tiers' })
export const rateLimitsFeature: Feature = {
  name: 'rate-limits',
  migrations: ['2026-11-22-03-rate-limit-rules-and-api-keys'],
  routes: { v1: [rules], v2: [rules] },
  jobs: ({ services, background }) => [
    { name: 'rate-limit-rules', intervalMs: RULES_REFRESH_MS, runAtStart: false, run: () => services.rateLimits.refreshRules() },
    // Asked for (soon()) by every request counted in memory; the last flush waits for the relays (stop order).
    { name: 'limiter-flush', intervalMs: FLUSH_MS, idleIntervalMs: background.streamIdleMs, jitter: 0, stopOrder: 2, run: () => services.rateLimits.flushCounts() },
  ],
  prune: (services) => services.rateLimits.prune(),
}
