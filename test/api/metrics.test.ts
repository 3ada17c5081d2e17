// Prometheus metrics on their own listener: requests by method, route template and status,
// never raw URLs; logins; rate-limit refusals; the outbox; the pool; the process — and, with
// WORKERS > 1, one scrape for every worker.
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { MetricsServer } from '../../src/metrics-server.js'
import { registrySource, startMetricsServer } from '../../src/metrics-server.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { emptyDirectory, freePort, startServer } from '../helpers/process.js'
import { login, seedUser,V1, V2 } from '../helpers/users.js'

describe('metrics', () => {
  let t: TestApp
  let server: MetricsServer
  beforeAll(async () => {
    t = await createTestApp({ METRICS_PORT: '0', ANONYMOUS_RATE_LIMIT: '50/60' })
    server = await startMetricsServer(registrySource(t.app.metrics!), '127.0.0.1', 0)
  })
  afterAll(async () => {
    await server.close()
    await t.close()
  })

  const scrape = async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/plain')
    return response.text()
  }

  it('count requests by route template and status, logins, refusals, and report the process, outbox and pool', async () => {
    const user = await seedUser(t.app)
    await t.app.inject({ url: `${V2}/users/${user.id}` })
    await t.app.inject({ url: `${V2}/users/${user.id}` })
    await t.app.inject({ url: `${V2}/users/987654` })
    await t.app.inject({ url: '/no/such/path/12345' })
    await login(t.app, user.username, user.password)
    await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: 'wrong password' } })
    for (let i = 0; i < 52; i++) await t.app.inject({ url: `${V1}/posts/`, remoteAddress: '10.250.0.1' })

    const text = await scrape()
    expect(text).toContain('http_requests_total{method="GET",route="/api/v2/users/{user_id}",status_code="200"} 2')
    expect(text).toContain('http_requests_total{method="GET",route="/api/v2/users/{user_id}",status_code="404"} 1')
    expect(text).toContain('http_requests_total{method="GET",route="(unmatched)",status_code="404"} 1')
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v2\/users\/\{user_id\}",status_code="200"\} \d/)
    expect(text).not.toContain(`/api/v2/users/${user.id}"`)
    // The raw path of an unmatched request appears nowhere (a digit string would also match
    // process figures and duration sums, which print with many digits).
    expect(text).not.toContain('no/such/path')
    expect(text).toContain('logins_total{result="success"} 1')
    expect(text).toContain('logins_total{result="failure"} 1')
    expect(text).toContain('rate_limit_rejections_total{route="/services/v1/posts"} 2')
    expect(text).toMatch(/^mail_outbox_pending \d+$/m)
    expect(text).toMatch(/^mail_outbox_oldest_pending_age_seconds \d/m)
    expect(text).toMatch(/^process_cpu_user_seconds_total /m)
    if (dialect() === 'postgres') expect(text).toMatch(/^db_pool_connections\{state="idle"\} \d+$/m)
    else expect(text).not.toContain('db_pool_connections')
  })

  it('are never served on the public port', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(404)
  })
})

describe('metrics of a server process', () => {
  it('are served on METRICS_PORT by one process, and it still shuts down cleanly', async () => {
    const port = await freePort()
    const cwd = await emptyDirectory()
    const server = await startServer({ DATA_DIR: path.join(cwd, 'data'), SECRET_KEY: 'x'.repeat(40), METRICS_PORT: String(port) }, cwd)
    try {
      for (let attempt = 0; attempt < 100 && !/Metrics at/.test(server.stdout()); attempt++) await sleep(50)
      await fetch(`${server.url}/api/v2/posts/`)
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      expect(text).toContain('http_requests_total{method="GET",route="/api/v2/posts",status_code="200"} 1')
    } finally {
      server.child.kill('SIGTERM')
    }
    expect((await server.exited).code).toBe(0)
  })
})

describe('metrics with WORKERS=2', () => {
  it('gather every worker into one scrape on the primary', async () => {
    const port = await freePort()
    const cwd = await emptyDirectory()
    const server = await startServer({ DATA_DIR: path.join(cwd, 'data'), SECRET_KEY: 'x'.repeat(40), WORKERS: '2', METRICS_PORT: String(port) }, cwd)
    try {
      // Both workers listening (each then answers the primary's metrics questions).
      const listening = () => [...server.stdout().matchAll(/Server listening/g)].length
      for (let attempt = 0; attempt < 200 && (listening() < 2 || !/Metrics of every worker/.test(server.stdout())); attempt++) await sleep(50)
      const requests = 30
      await Promise.all(Array.from({ length: requests }, () => fetch(`${server.url}/api/v2/posts/`).then((response) => response.text())))
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      const served = /http_requests_total\{method="GET",route="\/api\/v2\/posts",status_code="200"\} (\d+)/.exec(text)
      expect(Number(served?.[1])).toBe(requests)
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })
})
