// Access tokens carry their login session; revoking the session (logout, refresh-token reuse)
// ends every access token of it at once, in every process, with or without Redis.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp,TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { login, seedUser,V1, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

const redisUrl = inject('redisUrl')
const stores: [string, Record<string, string>][] = [['the database', {}], ...(redisUrl ? [['Redis', { REDIS_URL: redisUrl }] as [string, Record<string, string>]] : [])]

describe.each(stores)('session revocation (revocations in %s)', (_store, env) => {
  let t: TestApp
  let other: Awaited<ReturnType<typeof buildApp>>
  beforeAll(async () => {
    t = await createTestApp(env)
    // A second server process on the same database (and Redis).
    other = await buildApp({ config: loadConfig(t.env), secretKey: TEST_SECRET_KEY, prepare: false })
  })
  afterAll(async () => {
    await other.close()
    await t.close()
  })

  const me = (app: typeof other, accessToken: string, prefix = V1) =>
    app.inject({ url: `${prefix}/users/me`, headers: { authorization: `Bearer ${accessToken}` } })
  const refresh = (refreshToken: string, prefix = V1) =>
    t.app.inject({ method: 'POST', url: `${prefix}/refresh`, payload: { refresh_token: refreshToken } })

  it.each([V1, V2])('logout after a refresh ends the first access token too (%s)', async (prefix) => {
    const user = await seedUser(t.app)
    const first = await login(t.app, user.username, user.password, prefix)
    const refreshed = await refresh(first.refreshToken, prefix)
    expect(refreshed.statusCode).toBe(200)
    const second = refreshed.json().access_token as string
    expect((await me(t.app, first.accessToken, prefix)).statusCode).toBe(200)

    const logout = await t.app.inject({ method: 'POST', url: `${prefix}/logout`, headers: { authorization: `Bearer ${second}` } })
    expect(logout.statusCode).toBe(200)
    for (const app of [t.app, other]) {
      expectError(await me(app, first.accessToken, prefix), 401, 'Not authenticated')
      expectError(await me(app, second, prefix), 401, 'Not authenticated')
    }
  })

  it("refresh-token reuse ends the thief's fresh access token at once, in every process", async () => {
    const user = await seedUser(t.app)
    const victim = await login(t.app, user.username, user.password)
    // The thief refreshes with the stolen token first and gets a fresh pair.
    const stolen = await refresh(victim.refreshToken)
    expect(stolen.statusCode).toBe(200)
    const thiefAccess = stolen.json().access_token as string
    expect((await me(other, thiefAccess)).statusCode).toBe(200)

    // The victim's client presents the now-used refresh token: reuse is detected.
    expectError(await refresh(victim.refreshToken), 401, 'Not authenticated')
    for (const app of [t.app, other]) {
      expectError(await me(app, thiefAccess), 401, 'Not authenticated')
      expectError(await me(app, victim.accessToken), 401, 'Not authenticated')
    }
    expectError(await refresh(stolen.json().refresh_token as string), 401, 'Not authenticated')
  })

  it("logging out one session leaves the user's other sessions alone", async () => {
    const user = await seedUser(t.app)
    const laptop = await login(t.app, user.username, user.password)
    const phone = await login(t.app, user.username, user.password)
    await t.app.inject({ method: 'POST', url: `${V1}/logout`, headers: { authorization: `Bearer ${laptop.accessToken}` } })
    expectError(await me(other, laptop.accessToken), 401, 'Not authenticated')
    expect((await me(other, phone.accessToken)).statusCode).toBe(200)
  })
})
