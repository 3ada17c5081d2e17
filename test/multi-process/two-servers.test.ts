// Two server processes on one database (and optionally one Redis) behave as one service:
// a token revoked through one is refused by the other, the login limit counts attempts made
// at either, an avatar uploaded to one is served by the other, and a sign-in's second factor
// started at one is finished at the other, a TOTP code is taken once between them, and the
// second-factor budget counts at both.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { createTestDatabase, dialect,TEST_SECRET_KEY } from '../helpers/app.js'
import { PNG_1X1 } from '../helpers/multipart.js'
import type { RunningProcess } from '../helpers/process.js'
import { emptyDirectory, startServer, stopServers } from '../helpers/process.js'
import { awayFromStepEdge, aWrongCode, totpCode } from '../helpers/totp.js'
import { userFields } from '../helpers/users.js'

type Server = RunningProcess & { url: string }
const redisUrl = inject('redisUrl')

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

for (const shared of ['database', 'redis'] as const) {
  describe.skipIf(shared === 'redis' && !redisUrl)(`two processes sharing state in the ${shared} (${dialect()})`, () => {
    let a: Server
    let b: Server
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await createTestDatabase()
      drop = database.drop
      const env = {
        ...database.env,
        SECRET_KEY: TEST_SECRET_KEY,
        LOGIN_RATE_LIMIT: '4',
        MFA_RATE_LIMIT: '3',
        // Each test step speaks from its own client address.
        TRUST_PROXY: 'true',
        ...(shared === 'redis' ? { REDIS_URL: redisUrl } : {}),
      }
      const cwd = await emptyDirectory()
      a = await startServer(env, cwd)
      b = await startServer(env, cwd)
    })
    afterAll(async () => {
      await stopServers(a, b)
      await drop?.()
    })

    const from = (address: string) => ({ 'x-forwarded-for': address })
    const address = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`

    async function signUp(server: Server) {
      const fields = userFields()
      const response = await fetch(`${server.url}/services/v1/users/`, json(fields))
      expect(response.status).toBe(201)
      return { ...fields, id: ((await response.json()) as { id: number }).id }
    }

    async function logIn(server: Server, username: string, password: string) {
      const response = await fetch(`${server.url}/services/v1/login`, json({ username, password }, from(address())))
      expect(response.status).toBe(200)
      return (await response.json()) as { access_token: string; refresh_token: string }
    }

    it('refuses at B a token logged out at A, and its refresh token too', async () => {
      const user = await signUp(a)
      const tokens = await logIn(a, user.username, user.password)
      const bearer = { authorization: `Bearer ${tokens.access_token}` }
      expect((await fetch(`${b.url}/services/v1/users/me`, { headers: bearer })).status).toBe(200)
      expect((await fetch(`${a.url}/services/v1/logout`, { method: 'POST', headers: bearer })).status).toBe(200)
      expect((await fetch(`${b.url}/services/v1/users/me`, { headers: bearer })).status).toBe(401)
      expect((await fetch(`${b.url}/services/v1/refresh`, json({ refresh_token: tokens.refresh_token }))).status).toBe(401)
    })

    it('counts login attempts for one account across both processes', async () => {
      const user = await signUp(b)
      const attempt = (server: Server) =>
        fetch(`${server.url}/services/v1/login`, json({ username: user.username, password: 'wrong password' }, from(address())))
      const statuses = []
      for (const server of [a, b, a, b, a]) statuses.push((await attempt(server)).status)
      expect(statuses).toEqual([401, 401, 401, 401, 429])
    })

    it('counts login attempts from one address across both processes', async () => {
      const client = address()
      const attempt = (server: Server) =>
        fetch(`${server.url}/services/v1/login`, json({ username: `nobody_${Math.random()}`.replace('.', ''), password: 'x' }, from(client)))
      const statuses = []
      for (const server of [b, a, b, a, b]) statuses.push((await attempt(server)).status)
      expect(statuses).toEqual([401, 401, 401, 401, 429])
    })

    it('finishes at B a second factor asked for at A, takes a TOTP code once between them, and counts the budget at both', async () => {
      const user = await signUp(a)
      const { access_token } = await logIn(a, user.username, user.password)
      const bearer = { authorization: `Bearer ${access_token}` }
      const setup = (await (await fetch(`${a.url}/api/v2/users/me/mfa/totp`, { method: 'POST', headers: bearer })).json()) as { secret: string }
      const step = await awayFromStepEdge()
      expect((await fetch(`${b.url}/api/v2/users/me/mfa/totp/confirm`, json({ code: totpCode(setup.secret, step - 1) }, bearer))).status).toBe(200)

      const stepUp = async (server: Server) => {
        const answer = await fetch(`${server.url}/api/v2/login`, json({ username: user.username, password: user.password }, from(address())))
        expect(answer.status).toBe(401)
        return ((await answer.json()) as { mfa_token: string }).mfa_token
      }
      const finish = (server: Server, token: string, code: string) => fetch(`${server.url}/api/v2/login/mfa`, json({ mfa_token: token, code }, from(address())))
      const code = totpCode(setup.secret, step)
      expect((await finish(b, await stepUp(a), code)).status).toBe(200)
      const again = await stepUp(b)
      const statuses = []
      // The code B took, then two wrong ones: with the success, the account's three an hour are spent.
      for (const [server, tried] of [[a, code], [b, aWrongCode(setup.secret)], [a, aWrongCode(setup.secret)]] as const) statuses.push((await finish(server, again, tried)).status)
      expect(statuses).toEqual([401, 401, 429])
    })

    it('serves from B an avatar uploaded to A', async () => {
      const user = await signUp(a)
      const { access_token: token } = await logIn(a, user.username, user.password)
      const form = new FormData()
      form.append('file', new Blob([PNG_1X1], { type: 'image/png' }), 'me.png')
      const upload = await fetch(`${a.url}/services/v1/users/${user.id}/avatar`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      })
      expect(upload.status).toBe(200)
      const { profile_image_url: url } = (await upload.json()) as { profile_image_url: string }
      const served = await fetch(`${b.url}${url}`)
      expect(served.status).toBe(200)
      expect(Buffer.from(await served.arrayBuffer()).equals(PNG_1X1)).toBe(true)
    })
  })
}
