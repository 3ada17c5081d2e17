// Checks generated from the route table: every operation both versions document is walked, so
// a route added next year is held to the same rules without being listed here.
// - A `read` API key is refused on every method but GET and HEAD, public routes included.
// - A route an ordinary user is refused on even for their own records is a superusers' route:
//   it must not offer the API-key scheme, and refuses every key, a superuser's included; and
//   with REQUIRE_MFA_FOR_SUPERUSERS (on here) it refuses a superuser with no second factor.
// - A tier rule on a GET route applies to its HEAD and to the same route in the other version.
// - No route reads a body larger than JSON_BODY_LIMIT_BYTES but those listed here, each for its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { JSON_BODY_LIMIT_BYTES } from '../../src/app.js'
import { POST_BODY_LIMIT_BYTES } from '../../src/features/posts/posts.schemas.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { enrolTotp } from '../helpers/totp.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, V1, V2 } from '../helpers/users.js'

interface Operation {
  version: string
  method: string
  /** The documented path, with `{param}` placeholders. */
  path: string
  security: Record<string, unknown>[] | undefined
}

let t: TestApp
let admin: LoggedIn
/** A superuser with no second factor, whom REQUIRE_MFA_FOR_SUPERUSERS refuses on superusers' routes. */
let unenrolledAdmin: LoggedIn
let user: LoggedIn
let operations: Operation[]
const keys = { userRead: '', adminReadWrite: '' }
/** Real ids of the ordinary user's own records (or public ones), by path parameter. */
const ids: Record<string, string> = {}

async function createKey(owner: LoggedIn, scopes: string[]) {
  const created = await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, payload: { name: 'route table', scopes }, headers: owner.headers })
  expect(created.statusCode, created.body).toBe(201)
  return created.json() as { id: number; key: string }
}

/** A user (a new one unless given) with a post, a key and a session of their own, whose ids the walk then uses. */
async function ownRecords(owner?: LoggedIn): Promise<LoggedIn> {
  const who = owner ?? (await seedAndLogin(t.app))
  const post = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'Mine', text: 'My own post' }, headers: who.headers })
  const key = await createKey(who, ['read'])
  const sessions = await t.app.inject({ url: `${V2}/sessions`, headers: who.headers })
  Object.assign(ids, { user_id: String(who.user.id), post_id: String(post.json().id), api_key_id: String(key.id), session_id: String(sessions.json()[0].id) })
  return who
}

beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000', DEFAULT_RATE_LIMIT: '100000/60', REQUIRE_MFA_FOR_SUPERUSERS: 'true' })
  admin = await seedAndLogin(t.app, {}, { superuser: true })
  await enrolTotp(t.app, admin.headers)
  unenrolledAdmin = await seedAndLogin(t.app, {}, { superuser: true })
  user = await seedAndLogin(t.app)
  keys.adminReadWrite = (await createKey(admin, ['read', 'write'])).key
  keys.userRead = (await createKey(user, ['read'])).key
  const tier = await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: 'route_table' }, headers: admin.headers })
  const rule = await t.app.inject({ method: 'POST', url: `${V2}/tiers/none/rate-limits`, payload: { route: '* /api/v2/tiers/*', limit: 1000000, period_seconds: 60 }, headers: admin.headers })
  Object.assign(ids, { tier_id: String(tier.json().id), rate_limit_id: String(rule.json().id) })
  await ownRecords(user)
  operations = []
  for (const [version, prefix] of [['v1', V1], ['v2', V2]] as const) {
    const document = (await t.app.inject({ url: `${prefix}/openapi.json` })).json() as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>
    }
    for (const [path, byMethod] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(byMethod)) operations.push({ version, method: method.toUpperCase(), path, security: operation.security })
    }
  }
})
afterAll(() => t.close())

const urlOf = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? '1')
const call = (operation: Operation, headers: Record<string, string>, method = operation.method) =>
  t.app.inject({ method: method as 'GET', url: urlOf(operation.path), headers, ...(['GET', 'HEAD', 'DELETE'].includes(method) ? {} : { payload: {} }) })
const offersApiKeys = (operation: Operation) => operation.security?.some((scheme) => 'ApiKeyHeader' in scheme) ?? false

describe('the route table', () => {
  it('reads no body larger than 1 MiB but a v2 post\'s (its 100,000-character text) and an upload\'s bytes', () => {
    const raised = t.app.routeTable.filter((route) => (route.bodyLimit ?? 0) > JSON_BODY_LIMIT_BYTES).map((route) => `${route.method} ${route.url} ${route.bodyLimit}`)
    expect(raised.sort()).toEqual([
      `PATCH ${V2}/posts/:post_id ${POST_BODY_LIMIT_BYTES}`,
      `POST ${V2}/posts ${POST_BODY_LIMIT_BYTES}`,
      `PUT ${V2}/uploads/:upload_id/content ${t.app.config.files.maxBytes}`,
    ])
  })

  it('documents operations of both versions', () => {
    expect(operations.filter((operation) => operation.version === 'v1').length).toBeGreaterThan(20)
    expect(operations.filter((operation) => operation.version === 'v2').length).toBeGreaterThan(20)
  })

  it('refuses a read key on every method but GET and HEAD, public routes included', async () => {
    const let_through: string[] = []
    for (const operation of operations.filter((candidate) => !['GET', 'HEAD'].includes(candidate.method))) {
      const response = await call(operation, { 'x-api-key': keys.userRead })
      if (response.statusCode !== 403 || response.json().code !== 'api_key_scope_insufficient') let_through.push(`${operation.method} ${operation.path}: ${response.statusCode}`)
    }
    expect(let_through).toEqual([])
  })

  it("treats a route an ordinary user is refused on, even for their own records, as a superusers' route that refuses every key", async () => {
    const superuserRoutes: string[] = []
    const problems: string[] = []
    for (const operation of operations.filter((candidate) => candidate.security?.length)) {
      // A fresh user each time: the walk logs out, deletes and changes passwords as it goes.
      const owner = await ownRecords()
      const asUser = await call(operation, owner.headers)
      if (asUser.statusCode !== 403 || asUser.json().code !== 'forbidden') continue
      superuserRoutes.push(`${operation.method} ${operation.path}`)
      if (offersApiKeys(operation)) problems.push(`${operation.method} ${operation.path} documents the API-key scheme`)
      const withKey = await call(operation, { 'x-api-key': keys.adminReadWrite })
      if (withKey.statusCode !== 403 || withKey.json().code !== 'api_key_not_allowed') problems.push(`${operation.method} ${operation.path}: a superuser's key got ${withKey.statusCode}`)
      const unenrolled = await call(operation, unenrolledAdmin.headers)
      if (unenrolled.statusCode !== 403 || unenrolled.json().code !== 'mfa_enrolment_required') problems.push(`${operation.method} ${operation.path}: a superuser with no second factor got ${unenrolled.statusCode}`)
    }
    expect(problems).toEqual([])
    // The walk found them: restore, permanent removal, tiers, rate-limit rules, the event log, admin.
    expect(superuserRoutes).toEqual(
      expect.arrayContaining(['POST /services/v1/users/{user_id}/restore', 'DELETE /api/v2/posts/{post_id}/permanent', 'GET /api/v2/admin/overview', 'GET /api/v2/security-events', 'DELETE /api/v2/admin/users/{user_id}/mfa']),
    )
    // A user (a password hash, a login) for each of the hundred-odd protected routes: about 9 s
    // alone on PostgreSQL, and the time grows with the route table, not with a race.
  }, 300_000)

  it("applies a tier rule on a GET route to its HEAD and to the same route in the other version", async () => {
    const reads = operations.filter((operation) => operation.version === 'v2' && operation.method === 'GET' && !operation.path.includes('/docs') && !operation.path.endsWith('openapi.json'))
    const tier = await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: 'every_read' }, headers: admin.headers })
    const limits = new Map<string, number>()
    for (const [index, operation] of reads.entries()) {
      const limit = 1000 + index
      limits.set(operation.path, limit)
      const rule = await t.app.inject({ method: 'POST', url: `${V2}/tiers/${tier.json().id}/rate-limits`, payload: { route: `GET ${operation.path}`, limit, period_seconds: 60 }, headers: admin.headers })
      expect(rule.statusCode, rule.body).toBe(201)
    }
    const member = await seedAndLogin(t.app)
    await t.app.inject({ method: 'PATCH', url: `${V1}/users/${member.user.id}/tier`, payload: { tier_id: tier.json().id }, headers: admin.headers })
    // Rules are read again within two seconds; the service is asked to reload at once.
    await (t.app.services.rateLimits as unknown as { reloadRules(): Promise<void> }).reloadRules()
    const v1Paths = new Set(operations.filter((operation) => operation.version === 'v1' && operation.method === 'GET').map((operation) => operation.path))
    const misses: string[] = []
    for (const operation of reads) {
      const expected = String(limits.get(operation.path))
      const head = await call(operation, member.headers, 'HEAD')
      if (head.headers['ratelimit-limit'] !== expected) misses.push(`HEAD ${operation.path}: ${head.headers['ratelimit-limit']}`)
      const twin = V1 + operation.path.slice(V2.length)
      if (v1Paths.has(twin)) {
        const v1 = await call({ ...operation, path: twin }, member.headers)
        if (v1.headers['ratelimit-limit'] !== expected) misses.push(`GET ${twin}: ${v1.headers['ratelimit-limit']}`)
      }
    }
    expect(misses).toEqual([])
  })
})
