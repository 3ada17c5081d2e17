// Login limits that hold against attackers without locking out the real user: OWASP device
// cookies, one budget per account whatever name it is logged in with, and bounded keys.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { seedUser,V1, V2 } from '../../../test/helpers/users.js'

const redisUrl = inject('redisUrl')
const stores: [string, Record<string, string>][] = [['the database', {}], ...(redisUrl ? [['Redis', { REDIS_URL: redisUrl }] as [string, Record<string, string>]] : [])]

let addressSequence = 0
/** A fresh client address per call, unique to this process (the suites share one Redis). */
const freshAddress = () => `10.${process.pid % 250}.${Math.floor(++addressSequence / 250)}.${addressSequence % 250}`

describe.each(stores)('login limits (counters in %s)', (_store, env) => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ ...env, LOGIN_RATE_LIMIT: '3' })
  })
  afterAll(() => t.close())

  const attempt = (username: string, password: string, remoteAddress: string, device?: string, prefix = V1) =>
    t.app.inject({
      method: 'POST',
      url: `${prefix}/login`,
      payload: { username, password },
      remoteAddress,
      ...(device === undefined ? {} : { cookies: { device } }),
    })

  /** Logs in once and returns the device cookie the browser would keep. */
  async function knownDevice(username: string, password: string): Promise<string> {
    const response = await attempt(username, password, freshAddress())
    expect(response.statusCode).toBe(200)
    const cookie = response.cookies.find((entry) => entry.name === 'device')
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })
    // Valid a year (SECURITY.md).
    expect(new Date(cookie?.expires ?? 0).getTime()).toBeGreaterThan(Date.now() + 364 * 86_400_000)
    return cookie?.value ?? ''
  }

  it('let a known device log in while its account is locked out by someone else', async () => {
    const user = await seedUser(t.app)
    const device = await knownDevice(user.username, user.password)
    const attacker = freshAddress()
    // Every attempt counts, the device's own first login included: three more use up the budget.
    for (let i = 0; i < 3; i++) expect([401, 429]).toContain((await attempt(user.username, 'wrong password', freshAddress())).statusCode)
    // Untrusted clients, the right password included, are held by the account lockout...
    expectError(await attempt(user.username, user.password, attacker), 429, 'Too many requests')
    // ...but the user's own browser is not, from any address, in either version.
    expect((await attempt(user.username, user.password, attacker, device)).statusCode).toBe(200)
    expect((await attempt(user.email, user.password, freshAddress(), device, V2)).statusCode).toBe(200)
  })

  it("is not fooled by another account's device cookie or a forged one", async () => {
    const user = await seedUser(t.app)
    const other = await seedUser(t.app)
    const othersDevice = await knownDevice(other.username, other.password)
    for (let i = 0; i < 3; i++) await attempt(user.username, 'wrong password', freshAddress())
    expectError(await attempt(user.username, user.password, freshAddress(), othersDevice), 429, 'Too many requests')
    const [header, , signature] = othersDevice.split('.')
    const claims = Buffer.from(JSON.stringify({ typ: 'device', sub: String(user.id), jti: 'x', exp: 9999999999 })).toString('base64url')
    expectError(await attempt(user.username, user.password, freshAddress(), `${header}.${claims}.${signature}`), 429, 'Too many requests')
  })

  it('gives a known device a budget of its own', async () => {
    const user = await seedUser(t.app)
    const device = await knownDevice(user.username, user.password)
    for (let i = 0; i < 3; i++) expect((await attempt(user.username, 'wrong password', freshAddress(), device)).statusCode).toBe(401)
    expectError(await attempt(user.username, user.password, freshAddress(), device), 429, 'Too many requests')
  })

  it('counts the username and the email of one account against one budget', async () => {
    const user = await seedUser(t.app)
    expect((await attempt(user.username, 'wrong password', freshAddress())).statusCode).toBe(401)
    expect((await attempt(user.email.toUpperCase(), 'wrong password', freshAddress())).statusCode).toBe(401)
    expect((await attempt(user.email, 'wrong password', freshAddress())).statusCode).toBe(401)
    expectError(await attempt(user.username, user.password, freshAddress()), 429, 'Too many requests')
  })

  it('lets a valid email of any length log in (the limit key is bounded)', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(50)}.com`
    expect(email.length).toBeGreaterThan(241)
    const user = await seedUser(t.app, { email })
    const response = await attempt(email, user.password, freshAddress())
    expect(response.statusCode, response.body).toBe(200)
    expect((await attempt(`${'z'.repeat(250)}@example.com`, 'wrong password', freshAddress())).statusCode).toBe(422)
  })
})
