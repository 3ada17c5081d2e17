// With REDIS_URL, revoked token ids and login counters live in Redis (a real server).
import { randomBytes } from 'node:crypto'

import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'

import { SharedLimiter, storeKeyOf } from '../../src/features/rate-limits/index.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { seedAndLogin, seedUser,V1 } from '../helpers/users.js'

const redisUrl = inject('redisUrl')

describe.skipIf(!redisUrl)('with REDIS_URL', () => {
  let t: TestApp
  let limited: TestApp
  let redis: Redis
  // Both database suites share one Redis: keep this run's addresses apart.
  const address = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`

  beforeAll(async () => {
    t = await createTestApp({ REDIS_URL: redisUrl })
    limited = await createTestApp({ REDIS_URL: redisUrl, LOGIN_RATE_LIMIT: '2' })
    redis = new Redis(redisUrl)
  })
  afterAll(async () => {
    redis.disconnect()
    await t.close()
    await limited.close()
  })

  it('keeps a logged-out access token revoked in Redis, with a TTL', async () => {
    const { headers, accessToken } = await seedAndLogin(t.app)
    expect((await t.app.inject({ method: 'POST', url: `${V1}/logout`, headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${V1}/users/me`, headers }), 401, 'Not authenticated')
    const jti = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString()).jti
    // Under this deployment's REDIS_KEY_PREFIX, and nowhere else.
    const prefix = t.config.redisKeyPrefix
    expect(prefix).not.toBe('')
    expect(await redis.exists(`revoked-jti:${jti}`)).toBe(0)
    const ttl = await redis.pttl(`${prefix}revoked-jti:${jti}`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000)
    // And not in the database table.
    expect(await t.db.selectFrom('revoked_tokens').select('jti').execute()).toEqual([])
  })

  it('counts login attempts in Redis', async () => {
    const user = await seedUser(limited.app)
    const attempt = () =>
      limited.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: 'wrong password' }, remoteAddress: address })
    expect((await attempt()).statusCode).toBe(401)
    expect((await attempt()).statusCode).toBe(401)
    expectError(await attempt(), 429, 'Too many requests')
    const key = `${limited.config.redisKeyPrefix}request-limit:${storeKeyOf(`login-address:${address}`)}`
    // The two attempts let through are counted there; once spent, a window is refused at once.
    expect(Number(await redis.get(key))).toBe(2)
    expect(await limited.db.selectFrom('rate_limits').select('key').execute()).toEqual([])
  })

  it('names every login counter by what it counts: no key holds "undefined" (a device cookie or not, a known account or not)', async () => {
    // The store sees hashed keys; what they are hashed from is what must name real things.
    const counted: string[] = []
    const consume = SharedLimiter.prototype.consume
    vi.spyOn(SharedLimiter.prototype, 'consume').mockImplementation(function (this: SharedLimiter, key, ...rest) {
      counted.push(key)
      return consume.call(this, key, ...rest)
    })
    const user = await seedUser(t.app)
    const login = (username: string, password: string, cookies: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username, password }, cookies, remoteAddress: '10.9.8.7' })
    const ok = await login(user.username, user.password)
    const device = ok.cookies.find((cookie) => cookie.name === 'device')?.value ?? ''
    await login(user.username, 'wrong password')
    await login(user.username, 'wrong password', { device })
    await login('nobody_at_all', 'wrong password')
    await login('nobody@example.com', 'wrong password', { device: 'forged' })
    expect(counted.filter((key) => key.startsWith('login-')).length).toBeGreaterThanOrEqual(9)
    expect(counted.filter((key) => /undefined|null|NaN/.test(key))).toEqual([])
    const keys = await redis.keys(`${t.config.redisKeyPrefix}*`)
    expect(keys.filter((key) => /undefined|null|NaN/.test(key))).toEqual([])
  })
})
