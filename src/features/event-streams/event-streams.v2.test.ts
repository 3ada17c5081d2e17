// The realtime stream over a real socket: who hears what (public posts for anyone, the rest as the post
// policy lists them, a user's own events, the organizations' by membership, everything for superusers), tickets for EventSource (single use), resuming with
// Last-Event-ID and the reload past the retention window, heartbeats, a stream whose session
// ends, and the per-address limit (an IPv6 /64 is one client). Backpressure has a file of its own
// (src/features/event-streams/backpressure.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { SseClient } from '../../../test/helpers/sse.js'
import { openStream } from '../../../test/helpers/sse.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

let t: TestApp
let base: string
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp({ EVENT_STREAM_HEARTBEAT_SECONDS: '1', EVENT_STREAMS_PER_ADDRESS: '4', EVENT_STREAMS_PER_USER: '2' })
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

const open: SseClient[] = []
async function stream(query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openStream(`${base}${V2}/events/stream${query}`, headers)
  open.push(client)
  return client
}
async function closeAll(): Promise<void> {
  for (const client of open.splice(0)) {
    client.close()
    await client.ended
  }
  await waitFor(() => t.app.services.eventStreams.openStreams === 0)
}

const received = (client: SseClient) =>
  client.events().map((frame) => ({ id: Number(frame.id), type: frame.event, body: JSON.parse(frame.data ?? 'null') as { type: string; timestamp: string; data: { id: number; name?: string } } }))
const call = (method: 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers, ...(payload ? { payload } : {}) })

describe('GET /api/v2/events/stream', () => {
  it('sends posts to anyone, a user\'s own events to them, and everything to superusers', async () => {
    const alice = await seedAndLogin(t.app)
    const bob = await seedAndLogin(t.app)
    const anonymous = await stream()
    const hers = await stream('', alice.headers)
    const all = await stream('', admin.headers)
    expect(anonymous.status).toBe(200)
    expect(anonymous.contentType).toBe('text/event-stream; charset=utf-8')
    expect((await call('PATCH', `/users/${alice.user.id}`, alice.headers, { name: 'Alice' })).statusCode).toBe(200)
    expect((await call('PATCH', `/users/${bob.user.id}`, bob.headers, { name: 'Bob' })).statusCode).toBe(200)
    const created = await call('POST', '/posts', alice.headers, { title: 'Live', text: 'now' })
    // A last post that every stream hears: once it arrived everywhere, nothing before it is still on its way.
    const marker = (await call('POST', '/posts', admin.headers, { title: 'Marker', text: 'last' })).json() as { id: number }
    const heardMarker = (listener: typeof all) => received(listener).some((event) => event.body.data.id === marker.id && event.type === 'post.created')
    await waitFor(() => heardMarker(all) && heardMarker(anonymous) && heardMarker(hers))
    const before = (listener: typeof all) => received(listener).slice(0, -1)
    expect(before(all).map((event) => `${event.type}:${event.body.data.id}`)).toEqual([`user.updated:${alice.user.id}`, `user.updated:${bob.user.id}`, `post.created:${(created.json() as { id: number }).id}`])
    expect(before(hers).map((event) => event.type)).toEqual(['user.updated', 'post.created'])
    expect(before(hers)[0]!.body.data.name).toBe('Alice')
    expect(before(anonymous).map((event) => event.type)).toEqual(['post.created'])
    const ids = received(all).map((event) => event.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(received(all)[2]!.body).toEqual({ type: 'post.created', timestamp: expect.any(String), data: expect.objectContaining({ title: 'Live', author_id: alice.user.id }) })
    await closeAll()
  })

  it('opens with a single-use ticket for EventSource, which cannot send headers', async () => {
    const alice = await seedAndLogin(t.app)
    const issued = await call('POST', '/events/ticket', alice.headers)
    expect(issued.statusCode).toBe(200)
    const { ticket, expires_in } = issued.json() as { ticket: string; expires_in: number }
    expect(expires_in).toBe(30)
    const listening = await stream(`?ticket=${ticket}`)
    expect(listening.status).toBe(200)
    await call('PATCH', `/users/${alice.user.id}`, alice.headers, { name: 'Ticketed' })
    await waitFor(() => listening.events().length >= 1)
    expect(received(listening)[0]!.type).toBe('user.updated')
    const again = await t.app.inject({ url: `${V2}/events/stream?ticket=${ticket}` })
    expectError(again, 401, 'Invalid or expired stream ticket', 'invalid_stream_ticket')
    expectError(await t.app.inject({ url: `${V2}/events/stream?ticket=made-up` }), 401, 'Invalid or expired stream ticket', 'invalid_stream_ticket')
    expectError(await call('POST', '/events/ticket', {}), 401)
    await closeAll()
  })

  it('resumes after Last-Event-ID, in order, and tells a client that missed too much to reload', async () => {
    const author = await seedAndLogin(t.app)
    const first = await stream('', admin.headers)
    for (const title of ['one', 'two', 'three']) await call('POST', '/posts', author.headers, { title, text: '…' })
    await waitFor(() => first.events().length >= 3)
    const seen = received(first)
    first.close()
    await first.ended
    for (const title of ['four', 'five']) await call('POST', '/posts', author.headers, { title, text: '…' })
    const resumed = await stream('', { ...admin.headers, 'last-event-id': String(seen[2]!.id) })
    await waitFor(() => resumed.events().length >= 2)
    // A last post: once it arrived, nothing before it is still on its way.
    await call('POST', '/posts', author.headers, { title: 'marker', text: '…' })
    await waitFor(() => received(resumed).some((event) => (event.body.data as { title?: string }).title === 'marker'))
    expect(received(resumed).map((event) => (event.body.data as { title?: string }).title)).toEqual(['four', 'five', 'marker'])
    // The query parameter does the same for clients that cannot set the header.
    const byQuery = await stream(`?last_event_id=${seen[1]!.id}`)
    await waitFor(() => byQuery.events().length >= 4)
    expect(received(byQuery).map((event) => (event.body.data as { title?: string }).title)).toEqual(['three', 'four', 'five', 'marker'])
    // Past the retention window: the events after the client's last one are gone.
    await t.db.deleteFrom('change_events').where('id', '<=', seen[1]!.id).execute()
    const late = await stream('', { 'last-event-id': String(seen[0]!.id) })
    await waitFor(() => late.events().length >= 1)
    expect(late.events()[0]).toEqual({ event: 'reload', data: '{"type":"reload"}' })
    await closeAll()
  })

  it("follows the viewer's memberships: a role change opens an organization's drafts, a removal stops its posts' events", async () => {
    const owner = await seedAndLogin(t.app)
    const member = await seedAndLogin(t.app)
    const org = (await call('POST', '/orgs', owner.headers, { name: 'Streamed' })).json() as { id: number }
    await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: member.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    const listening = await stream('', member.headers)
    const write = async (title: string, extra: object) => (await call('POST', '/posts', owner.headers, { title, text: '…', ...extra })).json() as { id: number }
    const heardTitles = async () => {
      // A public post last: once it arrived, everything before it that the member may hear has too.
      const marker = await write(`marker ${Date.now()}`, {})
      await waitFor(() => received(listening).some((event) => event.body.data.id === marker.id))
      return received(listening).filter((event) => event.type === 'post.created').map((event) => (event.body.data as { title?: string }).title)
    }
    await write('team news', { visibility: 'org', org_id: org.id })
    await write('team draft', { visibility: 'org', status: 'draft', org_id: org.id })
    expect(await heardTitles()).toEqual(['team news', expect.stringMatching(/^marker/)])
    expect((await t.app.inject({ method: 'PATCH', url: `${V2}/orgs/${org.id}/members/${member.user.id}`, headers: owner.headers, payload: { role: 'admin' } })).statusCode).toBe(200)
    await write('second draft', { visibility: 'org', status: 'draft', org_id: org.id })
    expect((await heardTitles()).filter((title) => !title?.startsWith('marker'))).toEqual(['team news', 'second draft'])
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/orgs/${org.id}/members/${member.user.id}`, headers: owner.headers })).statusCode).toBe(200)
    await write('after leaving', { visibility: 'org', org_id: org.id })
    expect((await heardTitles()).filter((title) => !title?.startsWith('marker'))).toEqual(['team news', 'second draft'])
    await closeAll()
  })

  it('answers HEAD without starting a stream or spending a ticket', async () => {
    const alice = await seedAndLogin(t.app)
    const { ticket } = (await call('POST', '/events/ticket', alice.headers)).json() as { ticket: string }
    const head = await t.app.inject({ method: 'HEAD', url: `${V2}/events/stream?ticket=${ticket}` })
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(t.app.services.eventStreams.openStreams).toBe(0)
    expect((await stream(`?ticket=${ticket}`)).status).toBe(200)
    await closeAll()
  })

  it('sends heartbeats while nothing happens', async () => {
    const quiet = await stream()
    await waitFor(() => quiet.frames.some((frame) => frame.comment === 'heartbeat'))
    await closeAll()
  })

  it('ends a stream within seconds of its session ending', async () => {
    const alice = await seedAndLogin(t.app)
    const listening = await stream('', alice.headers)
    expect((await call('POST', '/logout', alice.headers)).statusCode).toBe(200)
    let ended = false
    void listening.ended.then(() => (ended = true))
    await waitFor(() => ended)
    await closeAll()
  })

  it('limits the streams one user and one address hold open', async () => {
    const alice = await seedAndLogin(t.app)
    for (let index = 0; index < 2; index++) expect((await stream('', alice.headers)).status).toBe(200)
    expectError(await t.app.inject({ url: `${V2}/events/stream`, headers: alice.headers }), 429, 'Too many event streams', 'rate_limited')
    for (let index = 0; index < 2; index++) expect((await stream()).status).toBe(200)
    const refused = await t.app.inject({ url: `${V2}/events/stream` })
    expectError(refused, 429, 'Too many event streams', 'rate_limited')
    expect(refused.headers['retry-after']).toBe('5')
    await closeAll()
    expect((await stream('', alice.headers)).status).toBe(200)
    await closeAll()
  })

  it('counts an IPv6 /64 as one address, as every per-address limit does', async () => {
    const behindProxy = await createTestApp({ TRUST_PROXY: '1', EVENT_STREAMS_PER_ADDRESS: '2' })
    try {
      const url = `${await behindProxy.app.listen({ host: '127.0.0.1', port: 0 })}${V2}/events/stream`
      const from = (address: string) => openStream(url, { 'x-forwarded-for': address })
      const held = [await from('2001:db8:1:2::1'), await from('2001:db8:1:2::ffff')]
      expect(held.map((client) => client.status)).toEqual([200, 200])
      const sameNetwork = await from('2001:db8:1:2:abcd::9')
      expect(sameNetwork.status).toBe(429)
      sameNetwork.close()
      // Another /64 is another client.
      const elsewhere = await from('2001:db8:1:3::1')
      expect(elsewhere.status).toBe(200)
      for (const client of [...held, elsewhere]) client.close()
    } finally {
      await behindProxy.close()
    }
  })
})
