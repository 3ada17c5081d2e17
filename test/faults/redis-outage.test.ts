// Redis (holding revocations and login counters) goes away and comes back: what needs it
// answers 503 meanwhile — never 500, never an unchecked token — and recovers by itself.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import type { TcpProxy } from '../helpers/tcp-proxy.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { login, seedUser,V1 } from '../helpers/users.js'
import { until200 } from '../helpers/wait.js'

const redisUrl = inject('redisUrl')

describe.skipIf(!redisUrl)('Redis outage', () => {
  let t: TestApp
  let proxy: TcpProxy
  beforeAll(async () => {
    const server = new URL(redisUrl)
    proxy = await startTcpProxy(server.hostname, Number(server.port || 6379))
    t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` })
  })
  afterAll(async () => {
    await t?.close()
    await proxy?.close()
  })

  it('answers 503 where Redis is needed, serves the rest, and recovers', async () => {
    const user = await seedUser(t.app)
    const { accessToken } = await login(t.app, user.username, user.password)
    const headers = { authorization: `Bearer ${accessToken}` }

    await proxy.down()
    expectError(await t.app.inject({ url: `${V1}/users/me`, headers }), 503, 'Service unavailable')
    expectError(
      await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: user.password } }),
      503,
      'Service unavailable',
    )
    expectError(await t.app.inject({ url: '/ready' }), 503, 'Service unavailable')
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200)

    await proxy.up()
    expect(await until200(() => t.app.inject({ url: `${V1}/users/me`, headers }))).toBe(200)
    expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200)
  })
})
