// The one limiter. Per-tier request limits on every endpoint: rules live in the database and are
// cached in every process, reloaded every RULES_REFRESH_MS by the scheduler's `rate-limit-rules`
// job (a change applies everywhere within
// seconds, without a restart); anonymous callers are counted per client address
// (ANONYMOUS_RATE_LIMIT), logged-in callers per user with their tier's rules, falling back to
// DEFAULT_RATE_LIMIT. And named buckets for flows that guard credentials and mail (login,
// sign-up, password reset), counted through the same shared counters.
import type { Logger } from '../../logger.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, rateLimited, RuleViolation, serviceUnavailable } from '../../shared/errors.js'
import type { Signals } from '../../shared/signals.js'
import type { TierService } from '../tiers/index.js'
import { addressGroup } from './address-group.js'
import type { CounterStore } from './counter-store.js'
import type { RateLimitsRepository } from './rate-limits.repository.js'
import type { Limit, RateLimitRule, RoutePattern } from './rule.js'
import { chooseRule, parseRoutePattern, RouteCatalog, toRateLimitRule, versionNeutral, versionNeutralPattern } from './rule.js'
import type { LimitDecision } from './shared-limiter.js'
import { SharedLimiter } from './shared-limiter.js'

export const RATE_LIMIT_RULE_NOT_FOUND = 'Rate limit not found'
export const INVALID_ROUTE_PATTERN = 'Route must be "METHOD /path/{param}", "METHOD /prefix/*" (METHOD may be *) or "*"'
/** How often every process reloads the rules (the `rate-limit-rules` job). */
export const RULES_REFRESH_MS = 2000
// Anonymous callers' counter keys, kept per address so that a request builds no string. Past
// this many addresses the cache starts again rather than grow with every address that calls.
const ANONYMOUS_KEYS_KEPT = 10_000

/** The named budgets of particular flows, each counted per key (an address, an account, a device…). */
export type LimitBucket =
  | 'login-address'
  | 'login-account'
  | 'login-device'
  | 'mfa-address'
  | 'mfa-account'
  | 'mfa-device'
  | 'signup-address'
  | 'password-reset-address'
  | 'password-reset-email'
  | 'email-login-address'
  | 'email-login-email'
  | 'verification-mail-user'
  | 'verification-mail-recipient'
  | 'invitation-org'
  | 'invitation-inviter'

export interface RateLimitOptions {
  anonymous: Limit
  fallback: Limit
  buckets: Record<LimitBucket, Limit>
  /** closed: refuse (503) when the counters' store is unreachable; open: let requests through. */
  failMode: 'open' | 'closed'
  /** Every API version's path prefix: a rule applies to its resource in each of them. */
  versionPrefixes: readonly string[]
  /** How many leading bits of an IPv6 address name one client (64: a /64 shares one budget). */
  ipv6PrefixBits: number
}

/** The buckets counted per client address: their key is the address's group (addressGroup). */
const ADDRESS_BUCKETS: ReadonlySet<LimitBucket> = new Set(['login-address', 'mfa-address', 'signup-address', 'password-reset-address', 'email-login-address'])

/** Who is asking, and for what. */
export interface LimitedRequest {
  /** The logged-in caller: an identity unique beyond one database (id and creation time), or null. */
  user: string | null
  tierId: number | null
  address: string
  method: string
  /** The route's template ("/api/v2/users/{user_id}"). */
  template: string
}

export interface RuleInput {
  route: string
  limit: number
  periodSeconds: number
}

type CachedRule = RateLimitRule & { pattern: RoutePattern }

const ruleNotFound = () => new DomainError('not_found', RATE_LIMIT_RULE_NOT_FOUND, { code: 'rate_limit_rule_not_found' })

export const routeMatchesNothing = (route: string) => `No route of this service matches "${route.trim()}"`

/** What RateLimitService is built from. */
export interface RateLimitServiceDependencies {
  repository: RateLimitsRepository
  store: CounterStore
  tiers: TierService
  logger: Logger
  options: RateLimitOptions
  signals: Signals
  /** Runs the `limiter-flush` job within its interval: hits were counted here. */
  flushSoon: () => void
  /** Filled by the HTTP layer as it registers routes. */
  routes?: RouteCatalog
}

export class RateLimitService {
  private rulesByTier = new Map<number | null, CachedRule[]>()
  private readonly anonymousLimit: Limit & { scope: string }
  private readonly anonymousKeys = new Map<string, string>()
  /** The limit each tier, method and route template gets, chosen once per rule reload. */
  private readonly chosen = new Map<string, Limit & { scope: string }>()
  private readonly limiter: SharedLimiter
  private storeDown = false

  private readonly repository: RateLimitsRepository
  private readonly tiers: TierService
  private readonly logger: Logger
  private readonly options: RateLimitOptions
  private readonly signals: Signals
  /** Filled by the HTTP layer as it registers routes. */
  readonly routes: RouteCatalog

  constructor(dependencies: RateLimitServiceDependencies) {
    this.repository = dependencies.repository
    this.tiers = dependencies.tiers
    this.logger = dependencies.logger
    this.options = dependencies.options
    this.signals = dependencies.signals
    this.routes = dependencies.routes ?? new RouteCatalog()
    const store = dependencies.store
    const flushSoon = dependencies.flushSoon
    this.limiter = new SharedLimiter(store, (error) => this.storeFailed(error), undefined, flushSoon)
    this.anonymousLimit = { ...this.options.anonymous, scope: 'anonymous' }
  }

  /** Loads the rules (the `rate-limit-rules` job keeps reloading them). */
  async start(): Promise<void> {
    await this.reloadRules()
  }

  /** The `rate-limit-rules` job's run: a failed reload keeps the last rules. */
  async refreshRules(): Promise<void> {
    await this.reloadRules().catch((error: unknown) => this.logger.warn({ err: error }, 'reloading rate-limit rules failed; keeping the last ones'))
  }

  /** The `limiter-flush` job's run: sends the hits counted here to the store; false when none waited. */
  flushCounts(): Promise<boolean> {
    return this.limiter.flush()
  }

  /**
   * The decision for an anonymous caller at `address` when it needs no round trip to the store
   * (most requests), counted; else undefined (then call check()). The most common request, so
   * it takes no request object, and the counter's key is built once per address: a string built
   * for each request is hashed for each request.
   */
  checkAnonymousLocally(address: string): LimitDecision | undefined {
    const { limit, periodSeconds, scope } = this.anonymousLimit
    let key = this.anonymousKeys.get(address)
    if (key === undefined) {
      if (this.anonymousKeys.size >= ANONYMOUS_KEYS_KEPT) this.anonymousKeys.clear()
      key = this.keyOf({ user: null, address }, scope, periodSeconds)
      this.anonymousKeys.set(address, key)
    }
    return this.limiter.consumeLocally(key, limit, periodSeconds * 1000)
  }

  /** Counts the request against its most specific limit. */
  async check(request: LimitedRequest): Promise<LimitDecision> {
    const { limit, periodSeconds, scope } = this.limitFor(request)
    try {
      const decision = await this.limiter.consume(this.keyOf(request, scope, periodSeconds), limit, periodSeconds * 1000)
      this.storeBack()
      return decision
    } catch (error) {
      this.storeFailed(error)
      if (this.options.failMode === 'closed') throw serviceUnavailable()
      return { allowed: true, limit, remaining: limit, resetSeconds: periodSeconds }
    }
  }

  /**
   * Counts one attempt in each bucket, in order, and refuses at the first one that is spent (429
   * with Retry-After; the buckets after it are not counted). These limits guard credentials and
   * mail, so every attempt is counted in the store, whatever the budget, and they fail closed
   * whatever RATE_LIMIT_FAIL says: 503 while the counters' store is away.
   */
  async consumeBuckets(hits: readonly (readonly [LimitBucket, string])[]): Promise<void> {
    for (const [bucket, key] of hits) {
      const { limit, periodSeconds } = this.options.buckets[bucket]
      let decision: LimitDecision
      try {
        const counted = ADDRESS_BUCKETS.has(bucket) ? this.clientOf(key) : key
        decision = await this.limiter.consume(`${bucket}:${counted}`, limit, periodSeconds * 1000, true)
      } catch {
        throw serviceUnavailable()
      }
      if (!decision.allowed) throw rateLimited(decision.resetSeconds)
    }
  }

  async list(actor: Actor, tierId: number | null): Promise<RateLimitRule[]> {
    await this.assertTier(actor, tierId)
    return (await this.repository.listRulesOfTier(tierId)).map(toRateLimitRule)
  }

  /** The rule's pattern; 422 when it is malformed or names no route of the service (a typo would limit nothing). */
  private patternOf(route: string): RoutePattern {
    const pattern = parseRoutePattern(route)
    if (!pattern) throw new RuleViolation('route', INVALID_ROUTE_PATTERN, 'route_pattern')
    if (!this.routes.anyMatches(pattern, this.options.versionPrefixes)) throw new RuleViolation('route', routeMatchesNothing(route), 'route_unknown')
    return pattern
  }

  async create(actor: Actor, tierId: number | null, input: RuleInput): Promise<RateLimitRule> {
    await this.assertTier(actor, tierId)
    this.patternOf(input.route)
    const row = await this.repository.insertRule({ tier_id: tierId, route: input.route.trim(), limit_count: input.limit, period_seconds: input.periodSeconds })
    await this.reloadRules()
    return toRateLimitRule(row)
  }

  async update(actor: Actor, tierId: number | null, id: number, changes: Partial<RuleInput>): Promise<RateLimitRule> {
    await this.assertTier(actor, tierId)
    if (changes.route !== undefined) this.patternOf(changes.route)
    const row = await this.repository.updateRule(tierId, id, {
      ...(changes.route === undefined ? {} : { route: changes.route.trim() }),
      ...(changes.limit === undefined ? {} : { limit_count: changes.limit }),
      ...(changes.periodSeconds === undefined ? {} : { period_seconds: changes.periodSeconds }),
    })
    if (!row) throw ruleNotFound()
    await this.reloadRules()
    return toRateLimitRule(row)
  }

  async delete(actor: Actor, tierId: number | null, id: number): Promise<void> {
    await this.assertTier(actor, tierId)
    if (!(await this.repository.deleteRule(tierId, id))) throw ruleNotFound()
    await this.reloadRules()
  }

  prune(): Promise<void> {
    return this.repository.deleteExpiredRateLimits()
  }

  /**
   * The client a per-address limit counts `address` as: the one grouping of every per-address
   * limit (the buckets here, anonymous requests, event streams), so an IPv6 /64 is one client.
   */
  clientOf(address: string): string {
    return addressGroup(address, this.options.ipv6PrefixBits)
  }

  private keyOf(request: Pick<LimitedRequest, 'user' | 'address'>, scope: string, periodSeconds: number): string {
    return `${request.user === null ? `ip:${this.clientOf(request.address)}` : `user:${request.user}`}|${scope}|${periodSeconds}`
  }

  private limitFor(request: LimitedRequest): Limit & { scope: string } {
    if (request.user === null) return this.anonymousLimit
    const cacheKey = `${request.tierId}|${request.method}|${request.template}`
    let limit = this.chosen.get(cacheKey)
    if (limit === undefined) {
      const template = versionNeutral(request.template, this.options.versionPrefixes)
      const rule = chooseRule(this.rulesByTier.get(request.tierId) ?? [], request.method, template)
      limit = rule ? { limit: rule.limit, periodSeconds: rule.periodSeconds, scope: `rule:${rule.id}` } : { ...this.options.fallback, scope: 'default' }
      this.chosen.set(cacheKey, limit)
    }
    return limit
  }

  private async reloadRules(): Promise<void> {
    const rows = await this.repository.listAllRules()
    const byTier = new Map<number | null, CachedRule[]>()
    for (const row of rows) {
      const rule = toRateLimitRule(row)
      const pattern = parseRoutePattern(rule.route)
      if (!pattern) continue
      byTier.set(rule.tierId, [...(byTier.get(rule.tierId) ?? []), { ...rule, pattern: versionNeutralPattern(pattern, this.options.versionPrefixes) }])
    }
    this.rulesByTier = byTier
    this.chosen.clear()
  }

  private async assertTier(actor: Actor, tierId: number | null): Promise<void> {
    assertSuperuser(actor)
    if (tierId !== null) await this.tiers.get(tierId)
  }

  private storeFailed(error: unknown): void {
    this.signals.emit('store-error', 'rate-limit')
    if (this.storeDown) return
    this.storeDown = true
    this.logger.error({ err: error, failMode: this.options.failMode }, `rate-limit store unreachable: requests are ${this.options.failMode === 'open' ? 'let through unlimited' : 'refused (503)'} until it is back`)
  }

  private storeBack(): void {
    if (!this.storeDown) return
    this.storeDown = false
    this.logger.warn('rate-limit store reachable again')
  }
}
