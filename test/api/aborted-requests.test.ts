// A client that goes away in the middle of its body is not a database outage: no 503, no
// "database unavailable" line for alerts to fire on.
import type { AddressInfo } from 'node:net'
import net from 'node:net'

import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createTestDatabase,TEST_ENV, TEST_SECRET_KEY } from '../helpers/app.js'
import { V1, V2 } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'

let app: Awaited<ReturnType<typeof buildApp>>
let drop: () => Promise<void>
let port: number
const lines: { level: number; msg: string }[] = []
/** Requests the server has begun (their headers read): a body is cut off only once it has. */
let requestsSeen = 0
/** While set, a request's hooks wait on it (as they would on a slow limiter round trip). */
let hooksHeld: Promise<void> | undefined
const abortedLines = () => lines.filter((line) => line.msg === 'request aborted by the client').length

beforeAll(async () => {
  const database = await createTestDatabase()
  drop = database.drop
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  app = await buildApp({ config: loadConfig({ ...TEST_ENV, ...database.env }), secretKey: TEST_SECRET_KEY, logger })
  app.addHook('onRequest', async () => {
    requestsSeen += 1
    await hooksHeld
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as AddressInfo).port
})
afterAll(async () => {
  await app.close()
  await drop()
})

/** Announces a 1000-byte body, sends part of it, and hangs up once the server has begun the request. */
async function abortMidBody(path: string, head = 'Content-Type: application/json', part = '{"name": "Ada'): Promise<void> {
  const seen = requestsSeen
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST ${path} HTTP/1.1\r\nHost: test\r\n${head}\r\nContent-Length: 1000\r\n\r\n${part}`)
  await waitFor(() => requestsSeen > seen)
  socket.destroy()
}

describe('a request aborted mid-body', () => {
  it('is logged as aborted, never as a database outage', async () => {
    const before = abortedLines()
    await abortMidBody(`${V1}/users/`)
    await abortMidBody(`${V2}/login`)
    // Logged when the server notices the hang-up, however busy the machine is.
    await waitFor(() => abortedLines() >= before + 2)
    expect(lines.filter((line) => /database unavailable/.test(line.msg))).toEqual([])
    expect(abortedLines()).toBe(before + 2)
    // The service is fine afterwards.
    expect((await app.inject({ url: '/ready' })).statusCode).toBe(200)
  })

  it('is logged when the client hung up while the request was still in its hooks', async () => {
    const before = abortedLines()
    let release: () => void = () => {}
    hooksHeld = new Promise<void>((resolve) => (release = resolve))
    const closed = new Promise<void>((resolve) => app.server.once('connection', (socket) => socket.once('close', () => resolve())))
    await abortMidBody(`${V1}/users/`)
    // The server has seen the connection close before the body parser starts.
    await closed
    hooksHeld = undefined
    release()
    await waitFor(() => abortedLines() >= before + 1)
    expect(abortedLines()).toBe(before + 1)
  })

  it('is logged for an avatar upload cut off mid-file too (the multipart parser sees a broken body)', async () => {
    const user = await app.services.users.create({ name: 'Uploader', username: 'uploader', email: 'uploader@example.com', password: 'uploading things 1' })
    const token = (await app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: 'uploader', password: 'uploading things 1' } })).json().access_token as string
    const before = abortedLines()
    await abortMidBody(
      `${V2}/users/${user.id}/avatar`,
      `Authorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=cut`,
      '--cut\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG',
    )
    await waitFor(() => abortedLines() >= before + 1)
    expect(abortedLines()).toBe(before + 1)
  })
})
