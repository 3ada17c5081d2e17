// Rate-limit rules and how a request finds its rule. A rule's route is a route template with its
// method ("GET /api/v2/users/{user_id}": every id of that route shares one budget), a prefix
// ("* /api/v2/posts/*"), or "*". The most specific rule wins: an exact template over a prefix,
// a longer prefix over a shorter one, a named method over "*".
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

/** Route paths compare without a trailing slash (the router ignores it too). */
const normalisePath = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)

/** Fastify's ":param" template as the rules write it, "{param}". */
export const templateOf = (url: string) => normalisePath(url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))

export function parseRoutePattern(route: string): RoutePattern | undefined {
  const text = route.trim()
  if (text === '*') return { method: '*', path: '', kind: 'any' }
  const [method = '', path = '', ...rest] = text.split(/\s+/)
  if (rest.length > 0 || !METHODS.has(method.toUpperCase()) || !/^\/[A-Za-z0-9_{}/.*-]*$/.test(path)) return undefined
  if (path.endsWith('/*')) return { method: method.toUpperCase(), path: path.slice(0, -1), kind: 'prefix' }
  if (path.includes('*')) return undefined
  return { method: method.toUpperCase(), path: normalisePath(path), kind: 'exact' }
}

function specificity(pattern: RoutePattern): number {
  const kind = pattern.kind === 'exact' ? 2_000_000 : pattern.kind === 'prefix' ? 1_000_000 : 0
  return kind + (pattern.kind === 'prefix' ? pattern.path.length * 2 : 0) + (pattern.method === '*' ? 0 : 1)
}

function matches(pattern: RoutePattern, method: string, template: string | undefined): boolean {
  if (pattern.method !== '*' && pattern.method !== method) return false
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
