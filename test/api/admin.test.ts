// The first superuser from ADMIN_* settings at start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { TEST_SECRET_KEY, createTestApp } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'
import { V1, login, seedAndLogin } from '../helpers/users.js'

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

  it('promotes an existing account with that email or username', async () => {
    const { user } = await seedAndLogin(t.app, { username: 'promote_me' })
    await restart({ ADMIN_USERNAME: 'promote_me', ADMIN_EMAIL: 'other@example.com' })
    const row = await t.db.selectFrom('users').select('is_superuser').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(Boolean(row.is_superuser)).toBe(true)
  })

  it('refuses to start with an invalid administrator account, naming the variable', async () => {
    await expect(restart({ ADMIN_USERNAME: 'Not Valid!' })).rejects.toThrow(/ADMIN_USERNAME/)
    await expect(restart({ ADMIN_EMAIL: 'not-an-email' })).rejects.toThrow(/ADMIN_EMAIL/)
  })
})
