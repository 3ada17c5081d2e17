// The realtime stream across processes: a stream open at one server hears the changes made at
// another, through PostgreSQL's LISTEN/NOTIFY or Redis pub/sub (SQLite alone: the shared file),
// and resumes at the other server after Last-Event-ID.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { createTestDatabase, dialect, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import type { RunningProcess } from '../../../test/helpers/process.js'
import { emptyDirectory, startServer, stopServers } from '../../../test/helpers/process.js'
import { openStream } from '../../../test/helpers/sse.js'
import { userFields } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

type Server = RunningProcess & { url: string }
const redisUrl = inject('redisUrl')

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })

for (const shared of ['database', 'redis'] as const) {
  describe.skipIf(shared === 'redis' && !redisUrl)(`event streams across processes sharing the ${shared} (${dialect()})`, () => {
    let a: Server
    let b: Server
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await createTestDatabase()
      drop = database.drop
      const env = { ...database.env, SECRET_KEY: TEST_SECRET_KEY, ...(shared === 'redis' ? { REDIS_URL: redisUrl } : {}) }
      const cwd = await emptyDirectory()
      a = await startServer(env, cwd)
      b = await startServer(env, cwd)
    })
    afterAll(async () => {
      await stopServers(a, b)
      await drop?.()
    })

    it('hears at B the posts written at A, and resumes at A after the last one heard at B', async () => {
      const fields = userFields()
      expect((await post(`${a.url}/services/v1/users/`, fields)).status).toBe(201)
      const login = await post(`${a.url}/services/v1/login`, { username: fields.username, password: fields.password })
      const token = ((await login.json()) as { access_token: string }).access_token
      const atB = await openStream(`${b.url}/api/v2/events/stream`)
      expect(atB.status).toBe(200)
      for (const title of ['first', 'second']) expect((await post(`${a.url}/api/v2/posts`, { title, text: '…' }, token)).status).toBe(201)
      await waitFor(() => atB.events().length >= 2)
      const heard = atB.events().map((frame) => ({ id: frame.id, title: (JSON.parse(frame.data ?? '{}') as { data: { title: string } }).data.title }))
      expect(heard.map((event) => event.title)).toEqual(['first', 'second'])
      atB.close()
      await atB.ended
      expect((await post(`${b.url}/api/v2/posts`, { title: 'third', text: '…' }, token)).status).toBe(201)
      const atA = await openStream(`${a.url}/api/v2/events/stream`, { 'last-event-id': heard[1]!.id! })
      await waitFor(() => atA.events().length >= 1)
      expect(atA.events().map((frame) => (JSON.parse(frame.data ?? '{}') as { data: { title: string } }).data.title)).toEqual(['third'])
      atA.close()
      await atA.ended
    })
  })
}
