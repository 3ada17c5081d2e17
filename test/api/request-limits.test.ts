// Per-tier request limits on every endpoint: route-template rules, the most specific rule,
// anonymous callers per address, headers, shared budgets across processes, live rule changes,
// a store outage in open and closed modes, and the sign-up limit — with and without Redis.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect,TEST_SECRET_KEY } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, seedUser, userFields,V1, V2 } from '../helpers/users.js'

const redisUrl = inject('redisUrl')
const stores: [string, Record<string, string>][] = [['the database', {}], ...(redisUrl ? [['Redis', { REDIS_URL: redisUrl }] as [string, Record<string, string>]] : [])]

let addressSequence = 0
/** A fresh client address per call, unique to this process (the suites share one Redis). */
const freshAddress = () => `10.${100 + (process.pid % 100)}.${Math.floor(++addressSequence / 250)}.${addressSequence % 250}`

/** The RateLimit-Remaining an anonymous GET from `address` is answered with (it must be a 200). */
const remainingIn = (t: TestApp) => async (address: string) => {
  const answer = await t.app.inject({ url: `${V1}/posts/`, remoteAddress: address })
  expect(answer.statusCode).toBe(200)
  return Number(answer.headers['ratelimit-remaining'])
}

describe.each(stores)('request limits (counters in %s)', (_store, env) => {
  let t: TestApp
  let anonymous: TestApp
  let admin: LoggedIn
  beforeAll(async () => {
    // Logins and seeding come from one address here: its anonymous budget is ample, users get 5.
    t = await createTestApp({ ...env, ANONYMOUS_RATE_LIMIT: '1000/60', DEFAULT_RATE_LIMIT: '5/60' })
    anonymous = await createTestApp({ ...env, ANONYMOUS_RATE_LIMIT: '3/60' })
    admin = await seedAndLogin(t.app, {}, { superuser: true })
    // The administrator works through an ample tier of its own.
    const ops = await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: `ops_${process.pid}` }, headers: admin.headers })
    const rule = await t.app.inject({ method: 'POST', url: `${V2}/tiers/${ops.json().id}/rate-limits`, payload: { route: '*', limit: 100_000, period_seconds: 60 }, headers: admin.headers })
    const assigned = await t.app.inject({ method: 'PATCH', url: `${V1}/users/${admin.user.id}/tier`, payload: { tier_id: ops.json().id }, headers: admin.headers })
    expect([ops.statusCode, rule.statusCode, assigned.statusCode], `${ops.body} ${rule.body} ${assigned.body}`).toEqual([201, 201, 200])
  })
  afterAll(async () => {
    await t.close()
    await anonymous.close()
  })

  async function tierWithRules(rules: { route: string; limit: number }[]): Promise<number> {
    const tier = await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: `tier_${++addressSequence}` }, headers: admin.headers })
    for (const rule of rules) {
      const created = await t.app.inject({
        method: 'POST',
        url: `${V2}/tiers/${tier.json().id}/rate-limits`,
        payload: { route: rule.route, limit: rule.limit, period_seconds: 60 },
        headers: admin.headers,
      })
      expect(created.statusCode, created.body).toBe(201)
    }
    return tier.json().id as number
  }

  async function memberOf(tierId: number): Promise<LoggedIn> {
    const user = await seedAndLogin(t.app)
    await t.app.inject({ method: 'PATCH', url: `${V1}/users/${user.user.id}/tier`, payload: { tier_id: tierId }, headers: admin.headers })
    return user
  }

  it('counts every id of a route template against one budget', async () => {
    const tier = await tierWithRules([{ route: 'GET /api/v2/users/{user_id}', limit: 3 }])
    const caller = await memberOf(tier)
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await seedUser(t.app)).id))
    for (const id of ids.slice(0, 3)) expect((await t.app.inject({ url: `${V2}/users/${id}`, headers: caller.headers })).statusCode).toBe(200)
    const limited = await t.app.inject({ url: `${V2}/users/${ids[3]}`, headers: caller.headers })
    expectError(limited, 429, 'Too many requests')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // Another route of the same caller has its own (default) budget.
    expect((await t.app.inject({ url: `${V2}/posts/`, headers: caller.headers })).statusCode).toBe(200)
  })

  it("counts a rule's route in every version and its HEAD as GET: one budget, no side door", async () => {
    const tier = await tierWithRules([{ route: 'GET /api/v2/users/{user_id}', limit: 3 }])
    const caller = await memberOf(tier)
    const target = caller.user.id
    expect((await t.app.inject({ url: `${V2}/users/${target}`, headers: caller.headers })).statusCode).toBe(200)
    const head = await t.app.inject({ method: 'HEAD', url: `${V2}/users/${target}`, headers: caller.headers })
    expect([head.statusCode, head.headers['ratelimit-limit'], head.headers['ratelimit-remaining']]).toEqual([200, '3', '1'])
    const v1 = await t.app.inject({ url: `${V1}/users/${target}`, headers: caller.headers })
    expect([v1.statusCode, v1.headers['ratelimit-remaining']]).toEqual([200, '0'])
    expect((await t.app.inject({ method: 'HEAD', url: `${V1}/users/${target}`, headers: caller.headers })).statusCode).toBe(429)
    expectError(await t.app.inject({ url: `${V2}/users/${target}`, headers: caller.headers }), 429, 'Too many requests')
  })

  it('uses the most specific rule, and tiers get their own limits', async () => {
    const gold = await tierWithRules([
      { route: '*', limit: 100 },
      { route: '* /api/v2/users/*', limit: 20 },
      { route: 'GET /api/v2/users/{user_id}', limit: 40 },
    ])
    const silver = await tierWithRules([{ route: '*', limit: 7 }])
    const goldUser = await memberOf(gold)
    const silverUser = await memberOf(silver)
    const limitOf = async (url: string, who: LoggedIn) => Number((await t.app.inject({ url, headers: who.headers })).headers['ratelimit-limit'])
    expect(await limitOf(`${V2}/users/${goldUser.user.id}`, goldUser)).toBe(40)
    expect(await limitOf(`${V2}/users/`, goldUser)).toBe(20)
    expect(await limitOf(`${V2}/posts/`, goldUser)).toBe(100)
    expect(await limitOf(`${V2}/users/${goldUser.user.id}`, silverUser)).toBe(7)
    const noTier = await seedAndLogin(t.app)
    expect(await limitOf(`${V2}/users/${goldUser.user.id}`, noTier)).toBe(5)
  })

  it('counts anonymous callers per address, with headers that count down', async () => {
    const address = freshAddress()
    const get = () => anonymous.app.inject({ url: `${V1}/posts/`, remoteAddress: address })
    const answers = [await get(), await get(), await get()]
    expect(answers.map((answer) => answer.headers['ratelimit-limit'])).toEqual(['3', '3', '3'])
    expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0'])
    for (const answer of answers) expect(Number(answer.headers['ratelimit-reset'])).toBeGreaterThan(0)
    const limited = await get()
    expectError(limited, 429, 'Too many requests')
    expect(limited.headers['ratelimit-remaining']).toBe('0')
    expect((await anonymous.app.inject({ url: `${V1}/posts/`, remoteAddress: freshAddress() })).statusCode).toBe(200)
    // Probes are never limited.
    for (let i = 0; i < 5; i++) expect((await anonymous.app.inject({ url: '/health', remoteAddress: address })).statusCode).toBe(200)
    expect((await anonymous.app.inject({ url: '/ready', remoteAddress: address })).statusCode).toBe(200)
  })

  it('counts a large budget in memory, per address', async () => {
    // Far from a large limit, hits are counted in the process and flushed to the store later.
    const large = await createTestApp({ ...env, ANONYMOUS_RATE_LIMIT: '30000/60' })
    try {
      const remaining = remainingIn(large)
      const first = freshAddress()
      const second = freshAddress()
      expect([await remaining(first), await remaining(first), await remaining(first)]).toEqual([29999, 29998, 29997])
      expect(await remaining(second)).toBe(29999)
      expect([await remaining(first), await remaining(second)]).toEqual([29996, 29998])
    } finally {
      await large.close()
    }
  })

  it('shares one budget between two processes', async () => {
    const other = await buildApp({ config: loadConfig(anonymous.env), secretKey: TEST_SECRET_KEY, prepare: false })
    try {
      const address = freshAddress()
      const statuses = []
      for (const app of [anonymous.app, other, anonymous.app, other]) statuses.push((await app.inject({ url: `${V2}/posts/`, remoteAddress: address })).statusCode)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await other.close()
    }
  })

  it('applies a rule change in every process without a restart', async () => {
    const other = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false })
    try {
      const tier = await tierWithRules([])
      const caller = await memberOf(tier)
      const limitIn = async () => Number((await other.inject({ url: `${V2}/posts/`, headers: caller.headers })).headers['ratelimit-limit'])
      expect(await limitIn()).toBe(5)
      const created = await t.app.inject({ method: 'POST', url: `${V1}/tiers/${tier}/rate-limits`, payload: { route: 'GET /api/v2/posts/', limit: 50, period_seconds: 60 }, headers: admin.headers })
      let seen = 0
      for (let attempt = 0; attempt < 60 && seen !== 50; attempt++) {
        seen = await limitIn()
        if (seen !== 50) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(seen).toBe(50)
      await t.app.inject({ method: 'PATCH', url: `${V1}/tiers/${tier}/rate-limits/${created.json().id}`, payload: { limit: 60 }, headers: admin.headers })
      for (let attempt = 0; attempt < 60 && seen !== 60; attempt++) {
        seen = await limitIn()
        if (seen !== 60) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(seen).toBe(60)
    } finally {
      await other.close()
    }
  })

  it('manages rules as a superuser only, with checked routes', async () => {
    const tier = await tierWithRules([])
    const user = await seedAndLogin(t.app)
    expectError(await t.app.inject({ url: `${V2}/tiers/${tier}/rate-limits`, headers: user.headers }), 403, 'Not enough permissions')
    const post = (tierRef: string | number, payload: object) => t.app.inject({ method: 'POST', url: `${V2}/tiers/${tierRef}/rate-limits`, payload, headers: admin.headers })
    expectError(await post(tier, { route: 'FETCH /x', limit: 1, period_seconds: 60 }), 422, /Route must be/)
    // A rule that names no route of the service would limit nothing: refused, naming the route.
    for (const route of ['GET /api/v2/user/{user_id}', '* /nowhere/*', 'DELETE /api/v2/tiers', 'PUT /api/v2/posts/{post_id}']) {
      const unknown = await post(tier, { route, limit: 1, period_seconds: 60 })
      expectError(unknown, 422, `No route of this service matches "${route}"`)
      expect(unknown.json().errors).toEqual([{ loc: ['body', 'route'], msg: `No route of this service matches "${route}"`, type: 'route_unknown' }])
    }
    for (const route of ['* /api/v2/posts/*', 'GET /services/v1/users/{user_id}', 'HEAD /api/v2/users/{user_id}', 'POST /api/v2/signup']) {
      expect((await post(tier, { route, limit: 1000, period_seconds: 60 })).statusCode, route).toBe(201)
    }
    expectError(await post(999999, { route: '*', limit: 1, period_seconds: 60 }), 404, 'Tier not found')
    const none = await post('none', { route: 'DELETE /api/v2/posts/{post_id}', limit: 9, period_seconds: 60 })
    expect(none.statusCode).toBe(201)
    expect(none.json()).toMatchObject({ tier_id: null, route: 'DELETE /api/v2/posts/{post_id}', limit: 9, period_seconds: 60 })
    const listed = await t.app.inject({ url: `${V1}/tiers/none/rate-limits`, headers: admin.headers })
    expect(listed.json().map((rule: { id: number }) => rule.id)).toContain(none.json().id)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/tiers/none/rate-limits/${none.json().id}`, headers: admin.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/tiers/none/rate-limits/${none.json().id}`, headers: admin.headers }), 404, 'Rate limit not found')
  })
})

// The anonymous keys kept per address start again past 10,000 addresses (rate-limits.service.ts);
// that must not reset anyone's count. Independent of the database and the store: run once.
describe.skipIf(dialect() !== 'sqlite')('anonymous callers from many addresses', () => {
  it('keep their counts once 10,000 other addresses have called', async () => {
    const large = await createTestApp({ ANONYMOUS_RATE_LIMIT: '30000/60' })
    try {
      const remaining = remainingIn(large)
      const first = freshAddress()
      expect([await remaining(first), await remaining(first)]).toEqual([29999, 29998])
      for (let batch = 0; batch < 100; batch++) await Promise.all(Array.from({ length: 100 }, () => remaining(freshAddress())))
      expect(await remaining(first)).toBe(29997)
    } finally {
      await large.close()
    }
  })
})

describe.each(stores)('the sign-up limit (counters in %s)', (_store, env) => {
  it('stops a sign-up flood from one address with 429, across versions', async () => {
    const t = await createTestApp({ ...env, SIGNUP_RATE_LIMIT: '3/3600' })
    try {
      const address = freshAddress()
      const signUp = (prefix: string) => t.app.inject({ method: 'POST', url: `${prefix}/users/`, payload: userFields(), remoteAddress: address })
      expect((await signUp(V1)).statusCode).toBe(201)
      expect((await signUp(V1)).statusCode).toBe(201)
      expect((await signUp(V1)).statusCode).toBe(201)
      const flooded = await signUp(V1)
      expectError(flooded, 429, 'Too many requests')
      expect(Number(flooded.headers['retry-after'])).toBeGreaterThan(0)
      expect((await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: userFields(), remoteAddress: freshAddress() })).statusCode).toBe(201)
    } finally {
      await t.close()
    }
  })
})

describe('IPv6 clients', () => {
  // Documentation addresses (2001:db8::/32); /64 networks of their own per run, so suites sharing a store never meet.
  const hex = (value: number) => (value % 0xffff).toString(16)
  const first = `2001:db8:${hex(process.pid)}:${hex(Date.now())}`
  const second = `2001:db8:${hex(process.pid)}:${hex(Date.now() + 1)}`
  const third = `2001:db8:${hex(process.pid)}:${hex(Date.now() + 2)}`

  it('share one budget per /64 for sign-ups and anonymous requests; another /64 has its own', async () => {
    const t = await createTestApp({ SIGNUP_RATE_LIMIT: '3/3600', ANONYMOUS_RATE_LIMIT: '4/60' })
    try {
      const signUp = (remoteAddress: string) => t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: userFields(), remoteAddress })
      for (const host of ['::1', '::2', ':a:b:c:d']) expect((await signUp(`${first}${host}`)).statusCode).toBe(201)
      expectError(await signUp(`${first}:ffff:ffff:ffff:ffff`), 429, 'Too many requests')
      expect((await signUp(`${second}::1`)).statusCode).toBe(201)
      // The sign-ups spent the /64's four anonymous requests: the next one is refused.
      expectError(await t.app.inject({ url: `${V1}/posts/`, remoteAddress: `${first}::99` }), 429, 'Too many requests')
      // An IPv4 client, mapped into IPv6 or not, is one address.
      expect((await t.app.inject({ url: `${V1}/posts/`, remoteAddress: '::ffff:192.0.2.7' })).headers['ratelimit-remaining']).toBe('3')
      expect((await t.app.inject({ url: `${V1}/posts/`, remoteAddress: '192.0.2.7' })).headers['ratelimit-remaining']).toBe('2')
    } finally {
      await t.close()
    }
  })

  it('RATE_LIMIT_IPV6_PREFIX=128 counts every address apart', async () => {
    const t = await createTestApp({ SIGNUP_RATE_LIMIT: '1/3600', RATE_LIMIT_IPV6_PREFIX: '128' })
    try {
      for (const host of ['::1', '::2']) expect((await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: userFields(), remoteAddress: `${third}${host}` })).statusCode).toBe(201)
    } finally {
      await t.close()
    }
  })
})

describe.skipIf(!redisUrl)('Redis away, for the request limits', () => {
  it.each([
    ['open', 200],
    ['closed', 503],
  ])('RATE_LIMIT_FAIL=%s answers %i, and logs the outage once', async (mode, status) => {
    const server = new URL(redisUrl)
    const proxy = await startTcpProxy(server.hostname, Number(server.port || 6379))
    const lines: { msg: string }[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_FAIL: mode, ANONYMOUS_RATE_LIMIT: '100/60' })
    const app = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false, logger })
    try {
      await proxy.down()
      for (let i = 0; i < 3; i++) expect((await app.inject({ url: `${V2}/posts/`, remoteAddress: freshAddress() })).statusCode).toBe(status)
      expect(lines.filter((line) => line.msg.startsWith('rate-limit store unreachable'))).toHaveLength(1)
      await proxy.up()
    } finally {
      await app.close()
      await t.close()
      await proxy.close()
    }
  })
  it('keeps the limits of sign-up, login, sign-in by email and password reset closed (503) with RATE_LIMIT_FAIL=open', async () => {
    const server = new URL(redisUrl)
    const proxy = await startTcpProxy(server.hostname, Number(server.port || 6379))
    const t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_FAIL: 'open' })
    try {
      await proxy.down()
      const flows: [string, object][] = [
        [`${V2}/signup`, { ...userFields(), accept_terms: true }],
        [`${V2}/login`, { username: 'ada', password: 'correct horse battery' }],
        [`${V2}/login/email`, { email: 'ada@example.com' }],
        [`${V2}/password-reset`, { email: 'ada@example.com' }],
      ]
      for (const [url, payload] of flows) {
        const answer = await t.app.inject({ method: 'POST', url, payload, remoteAddress: freshAddress() })
        expect(answer.statusCode, `${url}: ${answer.body}`).toBe(503)
      }
      await proxy.up()
    } finally {
      await t.close()
      await proxy.close()
    }
  })
})
