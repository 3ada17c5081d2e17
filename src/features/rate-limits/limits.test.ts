// Oversized bodies and uploads are refused before they are read whole: a client announcing
// 50 MB gets its 413 without sending a byte of it; one streaming without a length is cut off
// at the limit.
import { once } from 'node:events'
import net from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { seedAndLogin,V1 } from '../../../test/helpers/users.js'

let t: TestApp
let port: number
beforeAll(async () => {
  t = await createTestApp()
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
  port = Number(new URL(address).port)
})
afterAll(() => t.close())

/** Sends raw request bytes and resolves with the status line once the server answers. */
async function rawRequest(head: string, bodyChunks: string[] = []): Promise<{ status: string; bodyBytesSent: number }> {
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  let response = ''
  socket.on('data', (chunk: Buffer) => (response += chunk.toString()))
  socket.on('error', () => {})
  socket.write(head)
  let bodyBytesSent = 0
  for (const chunk of bodyChunks) {
    if (response !== '' || socket.destroyed) break
    socket.write(chunk)
    bodyBytesSent += chunk.length
    await new Promise((resolve) => setImmediate(resolve))
  }
  for (let waited = 0; response === '' && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
  socket.destroy()
  return { status: response.split('\r\n')[0] ?? '', bodyBytesSent }
}

describe('body limits', () => {
  it('refuses a JSON body announced at 50 MB before any of it is sent', async () => {
    const { status } = await rawRequest(
      `POST ${V1}/users/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`,
    )
    expect(status).toBe('HTTP/1.1 413 Payload Too Large')
  })

  it('cuts off a chunked JSON body once it passes 1 MiB', async () => {
    const chunk = 'x'.repeat(64 * 1024)
    const chunks = Array.from({ length: 64 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    const { status, bodyBytesSent } = await rawRequest(
      `POST ${V1}/users/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunks,
    )
    expect(status).toBe('HTTP/1.1 413 Payload Too Large')
    expect(bodyBytesSent).toBeLessThan(4 * 1024 * 1024)
  })

  it('refuses an avatar upload announced beyond the limit before any of it is sent', async () => {
    const { user, accessToken } = await seedAndLogin(t.app)
    const { status } = await rawRequest(
      `POST ${V1}/users/${user.id}/avatar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\n` +
        `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`,
    )
    expect(status).toBe('HTTP/1.1 413 Payload Too Large')
  })
})
