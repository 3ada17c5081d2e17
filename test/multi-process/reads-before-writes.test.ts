// Two server processes writing to one database at once, through units that read before they
// write (an edit reads the post first, an organization's post reads the membership first): on
// SQLite such a unit must wait for the write lock, never fail because another process committed
// since its read (SQLITE_BUSY_SNAPSHOT, which answered 503).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { dialect } from '../helpers/app.js'
import type { Server, ServersOnOneDatabase } from '../helpers/servers.js'
import { adminToken, serversOnOneDatabase } from '../helpers/servers.js'

const send = (server: Server, method: string, path: string, token: string, body: unknown) =>
  fetch(`${server.url}/api/v2${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })

describe(`units that read before they write, from two processes at once (${dialect()})`, () => {
  let servers: ServersOnOneDatabase
  let a: Server
  let b: Server
  let token: string
  beforeAll(async () => {
    servers = await serversOnOneDatabase()
    a = await servers.start()
    b = await servers.start()
    token = await adminToken(a)
  })
  afterAll(() => servers?.close())

  it('answers every edit and every organization post written at once from either process', async () => {
    const org = (await (await send(a, 'POST', '/orgs', token, { name: `Busy ${Date.now()}` })).json()) as { id: number }
    const ids: number[] = []
    for (let i = 0; i < 6; i++) ids.push(((await (await send(a, 'POST', '/posts', token, { title: `Edited ${i}`, text: 'x' })).json()) as { id: number }).id)
    const writes = Array.from({ length: 40 }, (_, index) => {
      const server = index % 2 ? a : b
      return index % 4 < 2
        ? send(server, 'PATCH', `/posts/${ids[index % ids.length]}`, token, { text: `Edit ${index}` })
        : send(server, 'POST', '/posts', token, { title: `In the org ${index}`, text: 'x', org_id: org.id })
    })
    const statuses = (await Promise.all(writes)).map((response) => response.status)
    expect(statuses.filter((status) => status !== 200 && status !== 201)).toEqual([])
  })
})
