// Rate-limit rules and how a request finds its rule. A rule's route is a route template with its
// method ("GET /api/v2/users/{user_id}": every id of that route shares one budget), a prefix
// ("* /api/v2/posts/*"), or "*". The most specific rule wins: an exact template over a prefix,
// a longer prefix over a shorter one, a named method over "*". A rule names a resource, not one
// version's address of it: it applies to the same route in every version (one budget), and HEAD
// counts as GET, so neither another version nor another method sidesteps it.
import { normaliseRoutePath } from '../../shared/route-path.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { RateLimitRuleRow } from './rate-limits.repository.js'

export interface RateLimitRule {
  id: number
  /** null: logged-in callers without a tier. */
  tierId: number | null
  route: string
  limit: number
  periodSeconds: number
  createdAt: string
  updatedAt: string
}

export interface RoutePattern {
  method: string
  path: string
  kind: 'exact' | 'prefix' | 'any'
}

export interface Limit {
  limit: number
  periodSeconds: number
}

const METHODS = new Set(['*', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])


/** HEAD reads what GET reads, and is limited as GET. */
export const limitedMethod = (method: string) => (method === 'HEAD' ? 'GET' : method)

export function parseRoutePattern(route: string): RoutePattern | undefined {
  const text = route.trim()
  if (text === '*') return { method: '*', path: '', kind: 'any' }
  const [method = '', path = '', ...rest] = text.split(/\s+/)
  if (rest.length > 0 || !METHODS.has(method.toUpperCase()) || !/^\/[A-Za-z0-9_{}/.*-]*$/.test(path)) return undefined
  // A HEAD rule is a GET rule: HEAD is limited as GET.
  const limited = limitedMethod(method.toUpperCase())
  if (path.endsWith('/*')) return { method: limited, path: path.slice(0, -1), kind: 'prefix' }
  if (path.includes('*')) return undefined
  return { method: limited, path: normaliseRoutePath(path), kind: 'exact' }
}

function specificity(pattern: RoutePattern): number {
  const kind = pattern.kind === 'exact' ? 2_000_000 : pattern.kind === 'prefix' ? 1_000_000 : 0
  return kind + (pattern.kind === 'prefix' ? pattern.path.length * 2 : 0) + (pattern.method === '*' ? 0 : 1)
}

/** The placeholder a version prefix becomes, so that one resource has one path in every version. */
const ANY_VERSION = '{version}'

/**
 * A route path with its version prefix (one of `versionPrefixes`) replaced by a placeholder:
 * "/services/v1/users/{user_id}" and "/api/v2/users/{user_id}" are both "{version}/users/{user_id}".
 */
export function versionNeutral(path: string, versionPrefixes: readonly string[]): string {
  for (const prefix of versionPrefixes) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return ANY_VERSION + path.slice(prefix.length)
  }
  return path
}

/** A pattern whose path names the resource in every version. */
export const versionNeutralPattern = (pattern: RoutePattern, versionPrefixes: readonly string[]): RoutePattern =>
  pattern.kind === 'any' ? pattern : { ...pattern, path: versionNeutral(pattern.path, versionPrefixes) }

/** The service's routes (method and template), as the HTTP layer registers them: a rule must name one. */
export class RouteCatalog {
  private readonly routes: { method: string; template: string }[] = []

  add(method: string, template: string): void {
    this.routes.push({ method, template })
  }

  /** Whether any route (in any version) falls under `pattern`; true while no route is known yet. */
  anyMatches(pattern: RoutePattern, versionPrefixes: readonly string[]): boolean {
    if (this.routes.length === 0) return true
    const neutral = versionNeutralPattern(pattern, versionPrefixes)
    return this.routes.some(({ method, template }) => matches(neutral, method, versionNeutral(template, versionPrefixes)))
  }
}


function matches(pattern: RoutePattern, method: string, template: string | undefined): boolean {
  if (pattern.method !== '*' && pattern.method !== limitedMethod(method)) return false
  if (pattern.kind === 'any') return true
  if (template === undefined) return false
  if (pattern.kind === 'exact') return pattern.path === template
  return `${template}/`.startsWith(pattern.path)
}

/** The most specific of `rules` for a request, or undefined. */
export function chooseRule<R extends { pattern: RoutePattern }>(rules: R[], method: string, template: string | undefined): R | undefined {
  let best: R | undefined
  for (const rule of rules) {
    if (matches(rule.pattern, method, template) && (best === undefined || specificity(rule.pattern) > specificity(best.pattern))) best = rule
  }
  return best
}

export const toRateLimitRule = (row: RateLimitRuleRow): RateLimitRule => ({
  id: row.id,
  tierId: row.tier_id,
  route: row.route,
  limit: row.limit_count,
  periodSeconds: row.period_seconds,
  createdAt: toIsoString(row.created_at),
  updatedAt: toIsoString(row.updated_at),
})
