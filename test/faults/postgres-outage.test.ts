// PostgreSQL goes away while the service runs (a proxy between them cuts every connection and
// refuses new ones), then comes back: 503 meanwhile, /health still up, and recovery on its
// own, without a restart.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTestApp, dialect } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import type { TcpProxy } from '../helpers/tcp-proxy.js'
import { V1, login, seedUser } from '../helpers/users.js'
import { until200 } from '../helpers/wait.js'

describe.skipIf(dialect() !== 'postgres')('PostgreSQL outage', () => {
  let t: TestApp
  let proxy: TcpProxy
  beforeAll(async () => {
    const server = new URL(inject('postgresUrl'))
    proxy = await startTcpProxy(server.hostname, Number(server.port || 5432))
    t = await createTestApp((databaseEnv) => {
      const url = new URL(databaseEnv.DATABASE_URL ?? '')
      url.port = String(proxy.port)
      return { DATABASE_URL: url.toString() }
    })
  })
  afterAll(async () => {
    await t?.close()
    await proxy?.close()
  })

  it('answers 503 while the database is down and recovers by itself', async () => {
    const user = await seedUser(t.app)
    const { accessToken } = await login(t.app, user.username, user.password)
    const headers = { authorization: `Bearer ${accessToken}` }
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).statusCode).toBe(200)

    await proxy.down()
    for (const request of [
      { url: `${V1}/users/${user.id}` },
      { url: `${V1}/users/` },
      { url: `${V1}/posts/` },
      { url: `${V1}/users/me`, headers },
      { method: 'POST' as const, url: `${V1}/login`, payload: { username: user.username, password: user.password } },
      { method: 'POST' as const, url: `${V1}/posts/`, payload: { title: 't', text: 'x' }, headers },
    ]) {
      expectError(await t.app.inject(request), 503, 'Service unavailable')
    }
    expectError(await t.app.inject({ url: '/ready' }), 503, 'Service unavailable')
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200)

    await proxy.up()
    expect(await until200(() => t.app.inject({ url: `${V1}/users/${user.id}` }))).toBe(200)
    expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V1}/users/me`, headers })).statusCode).toBe(200)
  })
})
