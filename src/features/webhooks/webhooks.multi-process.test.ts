// Webhook deliveries across processes: two servers on one database share one outbox and never
// send one delivery at the same time, nor twice after it succeeded; a server killed with
// SIGKILL in the middle of a delivery leaves it to the next process, which sends it (at least
// once, with the same webhook-id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { dialect } from '../../../test/helpers/app.js'
import { stopServers } from '../../../test/helpers/process.js'
import type { Server, ServersOnOneDatabase } from '../../../test/helpers/servers.js'
import { adminToken, serversOnOneDatabase } from '../../../test/helpers/servers.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.js'


const post = (url: string, body: unknown, token?: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })

async function register(server: Server, token: string, receiver: WebhookReceiver): Promise<number> {
  const response = await post(`${server.url}/api/v2/admin/webhooks`, { url: receiver.url, events: ['post.created'] }, token)
  expect(response.status).toBe(201)
  const { id, secret } = (await response.json()) as { id: number; secret: string }
  receiver.secrets = [secret]
  return id
}

describe(`webhook deliveries across processes (${dialect()})`, () => {
  let servers: ServersOnOneDatabase
  const start = () => servers.start()
  beforeAll(async () => {
    servers = await serversOnOneDatabase({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' })
  })
  afterAll(() => servers?.close())

  it('two processes on one outbox: every event delivered, none sent twice at once, none again after it succeeded', async () => {
    const receiver = await new WebhookReceiver().start()
    const a = await start()
    const b = await start()
    const token = await adminToken(a)
    const webhookId = await register(a, token, receiver)
    // Each message fails once, slowly, so both processes are busy with retries while new ones come in.
    const failedOnce = new Set<string>()
    receiver.respond = async (_path, id) => {
      await new Promise((resolve) => setTimeout(resolve, 30))
      if (failedOnce.has(id)) return { status: 200 }
      failedOnce.add(id)
      return { status: 500 }
    }
    const count = 30
    await Promise.all(Array.from({ length: count }, (_, index) => post(`${(index % 2 ? a : b).url}/api/v2/posts`, { title: `Post ${index}`, text: '…' }, token).then((response) => expect(response.status).toBe(201))))
    await waitFor(() => receiver.received.length >= count)
    // Once no delivery is pending, nothing more can be sent: then count what arrived.
    const pending = async () => {
      const response = await fetch(`${a.url}/api/v2/admin/webhooks/${webhookId}/deliveries?limit=100`, { headers: { authorization: `Bearer ${token}` } })
      return ((await response.json()) as { data: { status: string }[] }).data.filter((delivery) => delivery.status === 'pending').length
    }
    await waitFor(async () => (await pending()) === 0)
    expect(receiver.received).toHaveLength(count)
    expect(new Set(receiver.received.map((entry) => entry.id)).size).toBe(count)
    expect(receiver.received.every((entry) => entry.verifiedWith[0] === true)).toBe(true)
    expect(receiver.overlaps).toBe(0)
    // Two attempts per message: the failure and the success, never a third.
    const attemptsById = new Map<string, number>()
    for (const id of receiver.attemptIds) attemptsById.set(id, (attemptsById.get(id) ?? 0) + 1)
    expect([...attemptsById.values()].every((attempts) => attempts === 2)).toBe(true)
    await stopServers(a, b)
    await receiver.close()
  })

  it('a delivery under way when its process is killed is sent by the next process, with the same webhook-id', async () => {
    const receiver = await new WebhookReceiver().start()
    const first = await start()
    const token = await adminToken(first)
    await register(first, token, receiver)
    // The first attempt is held open: the process dies while it waits for the answer.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    receiver.respond = async () => {
      await held
      // Nobody reads this answer: its sender is dead.
      return { status: 500 }
    }
    expect((await post(`${first.url}/api/v2/posts`, { title: 'In flight', text: '…' }, token)).status).toBe(201)
    await waitFor(() => receiver.attempts >= 1)
    first.child.kill('SIGKILL')
    await first.exited
    receiver.respond = () => ({ status: 200 })
    release()
    const second = await start()
    // The dead process's claim runs out (three timeouts: 6 s here), then the next one sends it.
    await waitFor(() => receiver.received.length >= 1)
    expect(receiver.attemptIds).toHaveLength(2)
    expect(receiver.attemptIds[1]).toBe(receiver.attemptIds[0])
    expect(receiver.received[0]!.message.type).toBe('post.created')
    await stopServers(second)
    await receiver.close()
  }, 300_000)
})
