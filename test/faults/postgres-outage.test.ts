// PostgreSQL goes away while the service runs, then comes back: 503 meanwhile, /health still
// up, and recovery on its own, without a restart. Twice: a server of the test's own stopped
// for real (`pg_ctl stop -m immediate`, as in a crash) and started again, and the shared
// server cut off by a proxy that drops every connection and refuses new ones.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import type { PostgresServer } from '../helpers/postgres-server.js'
import { postgresBinDir, startPostgresServer } from '../helpers/postgres-server.js'
import type { TcpProxy } from '../helpers/tcp-proxy.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { login, seedUser,V1 } from '../helpers/users.js'
import { until200 } from '../helpers/wait.js'

const inCi = Boolean(process.env.CI) && process.env.CI !== 'false'
const binDir = postgresBinDir()

/** The same database through another address (a proxy's port, another server). */
const atUrl = (url: string) => (databaseEnv: Record<string, string>) => {
  const target = new URL(databaseEnv.DATABASE_URL ?? '')
  const other = new URL(url)
  target.host = other.host
  target.pathname = other.pathname === '/' ? target.pathname : other.pathname
  return { DATABASE_URL: target.toString() }
}

async function expectOutageAndRecovery(t: TestApp, down: () => Promise<void>, up: () => Promise<void>): Promise<void> {
  const user = await seedUser(t.app)
  const { accessToken } = await login(t.app, user.username, user.password)
  const headers = { authorization: `Bearer ${accessToken}` }
  expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).statusCode).toBe(200)

  await down()
  for (const request of [
    { url: `${V1}/users/${user.id}` },
    { url: `${V1}/users/` },
    { url: `${V1}/posts/` },
    { url: `${V1}/users/me`, headers },
    { method: 'POST' as const, url: `${V1}/login`, payload: { username: user.username, password: user.password } },
    { method: 'POST' as const, url: `${V1}/posts/`, payload: { title: 't', text: 'x' }, headers },
  ]) {
    const answer = await t.app.inject(request)
    expectError(answer, 503, 'Service unavailable')
    expect(answer.headers['retry-after']).toBe('5')
  }
  expectError(await t.app.inject({ url: '/ready' }), 503, 'Service unavailable')
  expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200)

  await up()
  expect(await until200(() => t.app.inject({ url: `${V1}/users/${user.id}` }))).toBe(200)
  expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200)
  expect((await t.app.inject({ url: `${V1}/users/me`, headers })).statusCode).toBe(200)
  expect((await t.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: { title: 't', text: 'x' }, headers })).statusCode).toBe(201)
}

describe.skipIf(dialect() !== 'postgres')('PostgreSQL stopped and started again', () => {
  let server: PostgresServer | undefined
  let t: TestApp | undefined
  beforeAll(async () => {
    if (!binDir) {
      if (inCi) throw new Error(`no PostgreSQL server binaries under /usr/lib/postgresql: they are required in CI`)
      return
    }
    server = await startPostgresServer(binDir)
    t = await createTestApp(atUrl(server.url))
  })
  afterAll(async () => {
    await t?.close()
    await server?.destroy()
  })

  it('answers 503 while the server is down and recovers by itself', async (context) => {
    if (!server || !t) return context.skip('no PostgreSQL server binaries here (Debian layout) to run a server of our own')
    const own = server
    await expectOutageAndRecovery(t, () => own.stop(), () => own.start())
  })
})

describe.skipIf(dialect() !== 'postgres')('PostgreSQL cut off by the network', () => {
  let t: TestApp
  let proxy: TcpProxy
  beforeAll(async () => {
    const server = new URL(inject('postgresUrl'))
    proxy = await startTcpProxy(server.hostname, Number(server.port || 5432))
    t = await createTestApp(atUrl(`postgres://127.0.0.1:${proxy.port}/`))
  })
  afterAll(async () => {
    await t?.close()
    await proxy?.close()
  })

  it('answers 503 while the database is unreachable and recovers by itself', async () => {
    await expectOutageAndRecovery(t, () => proxy.down(), () => proxy.up())
  })
})
