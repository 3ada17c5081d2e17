// A ban across processes: banned at server A, the user's stream open at server B closes within
// five seconds, and B refuses the user's token, refresh token, password and API key at once; a
// lift at B lets them sign in at A. An impersonation started at A is read-only at B, and ended
// at B it stops working at A.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestDatabase, dialect, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import type { RunningProcess } from '../../../test/helpers/process.js'
import { emptyDirectory, startServer, stopServers } from '../../../test/helpers/process.js'
import { openStream } from '../../../test/helpers/sse.js'
import { userFields } from '../../../test/helpers/users.js'

type Server = RunningProcess & { url: string }
const ADMIN = { username: 'support', email: 'support@example.com', password: 'a long admin password 1' }

const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

// With Redis (REDIS_URL), revocations and limits move there, but bans and sessions stay in the
// database, which both processes read on every request; the database run is the one that matters.
describe(`moderation across processes sharing the database (${dialect()})`, () => {
  let a: Server
  let b: Server
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase()
    drop = database.drop
    const env = {
      ...database.env,
      SECRET_KEY: TEST_SECRET_KEY,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    }
    const cwd = await emptyDirectory()
    a = await startServer(env, cwd)
    b = await startServer(env, cwd)
  })
  afterAll(async () => {
    await stopServers(a, b)
    await drop?.()
  })

  async function logIn(server: Server, username: string, password: string) {
    const answer = await send('POST', `${server.url}/api/v2/login`, { username, password })
    expect(answer.status).toBe(200)
    return (await answer.json()) as { access_token: string; refresh_token: string }
  }

  it('bans at A what B then refuses, closing the stream open at B within five seconds; lifted at B, A lets the user in', async () => {
    const fields = userFields()
    expect((await send('POST', `${a.url}/services/v1/users/`, fields)).status).toBe(201)
    const user = await logIn(a, fields.username, fields.password)
    const me = (await (await send('GET', `${a.url}/api/v2/users/me`, undefined, bearer(user.access_token))).json()) as { id: number }
    const key = (await (await send('POST', `${a.url}/api/v2/api-keys`, { name: 'bot', scopes: ['read'] }, bearer(user.access_token))).json()) as { key: string }
    const admin = await logIn(a, ADMIN.username, ADMIN.password)
    const stream = await openStream(`${b.url}/api/v2/events/stream`, bearer(user.access_token))
    expect(stream.status).toBe(200)

    const banned = await send('POST', `${a.url}/api/v2/admin/users/${me.id}/ban`, { reason: 'spam', public_message: 'Suspended.' }, bearer(admin.access_token))
    expect(banned.status).toBe(200)
    const bannedAt = Date.now()
    await stream.ended
    expect(Date.now() - bannedAt).toBeLessThan(5_000)
    for (const answer of [
      await send('GET', `${b.url}/api/v2/users/me`, undefined, bearer(user.access_token)),
      await send('POST', `${b.url}/api/v2/refresh`, { refresh_token: user.refresh_token }),
      await send('POST', `${b.url}/api/v2/login`, { username: fields.username, password: fields.password }),
      await send('GET', `${b.url}/api/v2/users/me`, undefined, { 'x-api-key': key.key }),
    ]) {
      expect(answer.status).toBe(403)
      expect(await answer.json()).toMatchObject({ code: 'account_banned', detail: 'Suspended.', banned_until: 'forever' })
    }

    expect((await send('DELETE', `${b.url}/api/v2/admin/users/${me.id}/ban`, undefined, bearer(admin.access_token))).status).toBe(200)
    await logIn(a, fields.username, fields.password)
    expect((await send('GET', `${a.url}/api/v2/users/me`, undefined, { 'x-api-key': key.key })).status).toBe(200)
  })

  it('holds an impersonation started at A to its mode at B, and ends it at B for A', async () => {
    const fields = userFields()
    expect((await send('POST', `${a.url}/services/v1/users/`, fields)).status).toBe(201)
    const user = await logIn(a, fields.username, fields.password)
    const me = (await (await send('GET', `${a.url}/api/v2/users/me`, undefined, bearer(user.access_token))).json()) as { id: number }
    const admin = await logIn(a, ADMIN.username, ADMIN.password)
    const started = await send('POST', `${a.url}/api/v2/admin/users/${me.id}/impersonate`, { reason: 'ticket 7', mode: 'read_only' }, bearer(admin.access_token))
    expect(started.status).toBe(201)
    const { access_token: token } = (await started.json()) as { access_token: string }
    expect((await send('GET', `${b.url}/api/v2/users/me`, undefined, bearer(token))).status).toBe(200)
    const write = await send('POST', `${b.url}/api/v2/posts`, { title: 'no', text: 'no' }, bearer(token))
    expect(write.status).toBe(403)
    expect(await write.json()).toMatchObject({ code: 'impersonation_read_only' })
    expect((await send('POST', `${b.url}/api/v2/admin/impersonation/end`, undefined, bearer(admin.access_token))).status).toBe(200)
    expect((await send('GET', `${a.url}/api/v2/users/me`, undefined, bearer(token))).status).toBe(401)
  })
})
