// A client that goes away in the middle of its body is not a database outage: no 503, no
// "database unavailable" line for alerts to fire on.
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { TEST_ENV, TEST_SECRET_KEY, createTestDatabase } from '../helpers/app.js'
import { V1, V2 } from '../helpers/users.js'

let app: Awaited<ReturnType<typeof buildApp>>
let drop: () => Promise<void>
let port: number
const lines: { level: number; msg: string }[] = []

beforeAll(async () => {
  const database = await createTestDatabase()
  drop = database.drop
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  app = await buildApp({ config: loadConfig({ ...TEST_ENV, ...database.env }), secretKey: TEST_SECRET_KEY, logger })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as AddressInfo).port
})
afterAll(async () => {
  await app.close()
  await drop()
})

/** Announces a 1000-byte JSON body, sends part of it, and hangs up. */
async function abortMidBody(path: string): Promise<void> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "Ada`)
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
}

describe('a request aborted mid-body', () => {
  it('is logged as aborted, never as a database outage', async () => {
    await abortMidBody(`${V1}/users/`)
    await abortMidBody(`${V2}/login`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(lines.filter((line) => /database unavailable/.test(line.msg))).toEqual([])
    expect(lines.filter((line) => line.msg === 'request aborted by the client')).toHaveLength(2)
    // The service is fine afterwards.
    expect((await app.inject({ url: '/ready' })).statusCode).toBe(200)
  })
})
