// The first superuser from ADMIN_* settings at start.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, createTestDatabase,TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { login, seedAndLogin, seedUser,V1 } from '../helpers/users.js'

const ADMIN = { ADMIN_EMAIL: 'root@example.com', ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'admin password 1', ADMIN_NAME: 'Root' }

describe('ADMIN_* bootstrap', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp(ADMIN)
  })
  afterAll(() => t.close())

  /** Starts (and stops) another instance on the same database, as a restart would. */
  const restart = async (env: Record<string, string> = {}) => {
    const app = await buildApp({ config: loadConfig({ ...t.env, ...env }), secretKey: TEST_SECRET_KEY })
    await app.close()
  }

  it('creates a superuser who can log in and use superuser endpoints', async () => {
    const admin = await login(t.app, 'root', ADMIN.ADMIN_PASSWORD)
    const headers = { authorization: `Bearer ${admin.accessToken}` }
    const me = (await t.app.inject({ url: `${V1}/users/me`, headers })).json()
    expect(me).toMatchObject({ username: 'root', email: 'root@example.com', name: 'Root' })
    const victim = await seedAndLogin(t.app)
    const response = await t.app.inject({ method: 'DELETE', url: `${V1}/users/${victim.user.id}/permanent`, headers })
    expect(response.statusCode).toBe(200)
  })

  it('is idempotent across restarts and leaves the password alone', async () => {
    await restart({ ADMIN_PASSWORD: 'a different password' })
    await restart()
    const rows = await t.db.selectFrom('users').select('id').where('username', '=', 'root').execute()
    expect(rows).toHaveLength(1)
    await expect(login(t.app, 'root', ADMIN.ADMIN_PASSWORD)).resolves.toBeDefined()
  })

  it('refuses to start, naming the conflict, when the admin username or email belongs to an ordinary account', async () => {
    const squatter = await seedUser(t.app, { username: 'future_admin' })
    await expect(restart({ ADMIN_USERNAME: 'future_admin', ADMIN_EMAIL: 'ops@example.com' })).rejects.toThrow(
      /ADMIN_USERNAME.*future_admin.*not a superuser.*ADMIN_PROMOTE_EXISTING/,
    )
    await expect(restart({ ADMIN_USERNAME: 'ops_admin', ADMIN_EMAIL: squatter.email })).rejects.toThrow(/email.*ADMIN_PROMOTE_EXISTING/)
    const row = await t.db.selectFrom('users').select('is_superuser').where('id', '=', squatter.id).executeTakeFirstOrThrow()
    expect(Boolean(row.is_superuser)).toBe(false)
  })

  it('promotes an existing account with that email or username when ADMIN_PROMOTE_EXISTING=true, and logs it at warn', async () => {
    const { user } = await seedAndLogin(t.app, { username: 'promote_me' })
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
    const env = { ...t.env, ADMIN_USERNAME: 'promote_me', ADMIN_EMAIL: 'other@example.com', ADMIN_PROMOTE_EXISTING: 'true' }
    const app = await buildApp({ config: loadConfig(env), secretKey: TEST_SECRET_KEY, logger })
    await app.close()
    const row = await t.db.selectFrom('users').select('is_superuser').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(Boolean(row.is_superuser)).toBe(true)
    const promotion = lines.map((line) => JSON.parse(line)).find((entry) => /promoted/.test(entry.msg))
    expect(promotion).toMatchObject({ level: 40, userId: user.id })
  })

  it('refuses to start with an invalid administrator account, naming the variable', async () => {
    await expect(restart({ ADMIN_USERNAME: 'Not Valid!' })).rejects.toThrow(/ADMIN_USERNAME/)
    await expect(restart({ ADMIN_EMAIL: 'not-an-email' })).rejects.toThrow(/ADMIN_EMAIL/)
  })
})

describe('several processes starting at once with ADMIN_*', () => {
  it('agree: one creates the superuser, the others find it and start', async () => {
    const database = await createTestDatabase()
    try {
      // Migrated once first (as the cluster primary does); then three start at once with ADMIN_*.
      await (await buildApp({ config: loadConfig({ ...TEST_ENV, ...database.env }), secretKey: TEST_SECRET_KEY })).close()
      const env = { ...TEST_ENV, ...database.env, ...ADMIN }
      const apps = await Promise.all([1, 2, 3].map(() => buildApp({ config: loadConfig(env), secretKey: TEST_SECRET_KEY })))
      const [first] = apps
      const users = await first!.inject({ url: `${V1}/users/?items_per_page=100` })
      expect(users.json().data.filter((user: { username: string }) => user.username === 'root')).toHaveLength(1)
      await Promise.all(apps.map((app) => app.close()))
    } finally {
      await database.drop()
    }
  })
})
