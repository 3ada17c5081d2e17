// TRUST_PROXY as a hop count or a list of proxies: a client cannot choose its own address by
// prepending to X-Forwarded-For, so per-address limits hold; `true` is trusted but warned about.
import { pino } from 'pino'
import { afterAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp,TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { V1 } from '../helpers/users.js'

describe.each([['a hop count', '1'], ['a proxy list', '127.0.0.1, 10.200.0.0/16']])('TRUST_PROXY as %s', (_label, trustProxy) => {
  const apps: TestApp[] = []
  afterAll(() => Promise.all(apps.map((app) => app.close())))

  it('takes the address the trusted proxy saw, whatever the client prepends', async () => {
    const t = await createTestApp({ TRUST_PROXY: trustProxy, LOGIN_RATE_LIMIT: '2' })
    apps.push(t)
    const attempt = (spoofed: string) =>
      t.app.inject({
        method: 'POST',
        url: `${V1}/login`,
        payload: { username: 'nobody_here', password: 'wrong password' },
        headers: { 'x-forwarded-for': `${spoofed}, 10.99.0.7` },
      })
    expect((await attempt('1.1.1.1')).statusCode).toBe(401)
    expect((await attempt('2.2.2.2')).statusCode).toBe(401)
    expectError(await attempt('3.3.3.3'), 429, 'Too many requests')
  })
})

describe('TRUST_PROXY=true', () => {
  it('still works, and warns once at start that clients choose their own address', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
    const t = await createTestApp()
    try {
      const app = await buildApp({ config: loadConfig({ ...TEST_ENV, ...t.env, TRUST_PROXY: 'true' }), secretKey: TEST_SECRET_KEY, logger, prepare: false })
      await app.close()
    } finally {
      await t.close()
    }
    const warnings = lines.map((line) => JSON.parse(line).msg as string).filter((msg) => msg.includes('TRUST_PROXY=true'))
    expect(warnings).toHaveLength(1)
  })
})
