// Backpressure on the realtime stream, over real sockets: a client that stops reading is dropped
// before what waits for it passes the bound (the kernel's buffers fill first, then Node's), while
// the reader beside it gets every event; and one replay sends about REPLAY_MAX_BYTES, then tells
// the client to reload. Hundreds of long posts are written, so this runs on SQLite and PostgreSQL
// only (not again through PgBouncer and with the fast path off).
import net from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { SseClient, SseFrame } from '../../../test/helpers/sse.js'
import { openStream } from '../../../test/helpers/sse.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { REPLAY_MAX_BYTES } from './event-streams.service.js'

let t: TestApp
let base: string
beforeAll(async () => {
  t = await createTestApp({ EVENT_STREAM_HEARTBEAT_SECONDS: '1', EVENT_STREAMS_PER_ADDRESS: '10' })
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(() => t.close())

const open: SseClient[] = []
async function stream(headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openStream(`${base}${V2}/events/stream`, headers)
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
const call = (method: 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers, ...(payload ? { payload } : {}) })

/** A client that asks for the stream and then never reads a byte of it. */
async function stalledStream(): Promise<net.Socket> {
  const { hostname, port } = new URL(base)
  const socket = net.connect(Number(port), hostname)
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`GET ${V2}/events/stream HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`)
  // No 'data' listener: once Node's small read buffer and the kernel's fill, nothing more is taken.
  return socket
}

describe('backpressure', () => {
  it('drops a stream whose client stops reading before its backlog passes the bound, and keeps the one that reads', async () => {
    const writer = await seedAndLogin(t.app)
    const streams = t.app.services.eventStreams
    const reader = await stream()
    const stalled = await Promise.all([stalledStream(), stalledStream(), stalledStream()])
    await waitFor(() => streams.openStreams === 4)
    const droppedBefore = streams.dropped
    const created = await call('POST', '/posts', writer.headers, { title: 'Long', text: 'x'.repeat(10_000) })
    const { id } = created.json() as { id: number }
    // Edits of a long post until the stalled clients are dropped: first the kernel's buffers fill
    // (a few MB a socket), then Node's, up to the bound.
    let edits = 0
    while (streams.dropped < droppedBefore + stalled.length && edits < 3_000) {
      await Promise.all(Array.from({ length: 20 }, (_, index) => call('PATCH', `/posts/${id}`, writer.headers, { text: `${edits + index} ${'y'.repeat(9_990)}` })))
      edits += 20
    }
    expect(streams.dropped - droppedBefore).toBe(stalled.length)
    await waitFor(() => streams.openStreams === 1)
    // The reading client got every event, in order.
    await waitFor(() => reader.events().filter((frame) => frame.event === 'post.updated').length === edits)
    for (const socket of stalled) socket.destroy()
    await closeAll()
  })

  it('sends about REPLAY_MAX_BYTES of missed events in one replay, then tells the client to reload', async () => {
    const writer = await seedAndLogin(t.app)
    const marker = await call('POST', '/posts', writer.headers, { title: 'Before', text: 'a marker' })
    const { id } = marker.json() as { id: number }
    const [last] = await t.db.selectFrom('change_events').select('id').orderBy('id', 'desc').limit(1).execute()
    const text = 'z'.repeat(10_000)
    const needed = Math.ceil(REPLAY_MAX_BYTES / text.length) + 50
    for (let sent = 0; sent < needed; sent += 25) {
      await Promise.all(Array.from({ length: 25 }, () => call('PATCH', `/posts/${id}`, writer.headers, { text })))
    }
    const resumed = await stream({ 'last-event-id': String(last!.id) })
    await waitFor(() => resumed.events().some((frame) => frame.event === 'reload'))
    const replayed = resumed.events().slice(0, resumed.events().findIndex((frame) => frame.event === 'reload'))
    // What went on the wire for each event: its id, type and data lines.
    const frameBytes = (frame: SseFrame) => Buffer.byteLength(`id: ${frame.id}\nevent: ${frame.event}\ndata: ${frame.data}\n\n`)
    const bytes = replayed.reduce((sum, frame) => sum + frameBytes(frame), 0)
    const oneEvent = frameBytes(replayed[0]!)
    expect(replayed.length).toBeLessThan(needed)
    // The event that reaches the bound is the last one sent.
    expect(bytes).toBeLessThanOrEqual(REPLAY_MAX_BYTES + oneEvent)
    expect(bytes).toBeGreaterThan(REPLAY_MAX_BYTES - 2 * oneEvent)
    await closeAll()
  })
})
