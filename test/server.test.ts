// The process as an operator runs it: configuration errors, the generated development key,
// listening, and a clean exit on SIGTERM.
import { once } from 'node:events'
import { stat } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { emptyDirectory, runEntry, startServer } from './helpers/process.js'

let cwd: string
beforeAll(async () => {
  cwd = await emptyDirectory()
})

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ NODE_ENV: 'production' }, 'SECRET_KEY'],
    [{ DATABASE_URL: 'mysql://nope' }, 'DATABASE_URL'],
    [{ LOGIN_RATE_LIMIT: '0' }, 'LOGIN_RATE_LIMIT'],
  ])('stop the process with one line naming the variable: %j', async (env, variable) => {
    const server = runEntry('src/server.ts', [], { DATA_DIR: path.join(cwd, 'bad'), ...env }, cwd)
    const { code } = await server.exited
    expect(code).toBe(1)
    const lines = server.stderr().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(`^Configuration error: ${variable}`))
  })
})

describe('a development server without SECRET_KEY', () => {
  it('generates a key file with mode 0600, warns once, and reuses it', async () => {
    const dataDir = path.join(cwd, 'data')
    const first = await startServer({ DATA_DIR: dataDir }, cwd)
    const health = await fetch(`${first.url}/health`)
    expect(health.status).toBe(200)
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)
    expect(first.stdout()).toMatch(/SECRET_KEY is not set: generated one in/)
    const file = await stat(path.join(dataDir, 'secret_key'))
    expect(file.mode & 0o777).toBe(0o600)
    expect((await stat(path.join(dataDir, 'app.db'))).isFile()).toBe(true)

    const second = await startServer({ DATA_DIR: dataDir }, cwd)
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)
    expect(second.stdout()).not.toMatch(/SECRET_KEY is not set/)
  })
})

describe('SIGTERM', () => {
  it('finishes an in-flight request, then exits 0', async () => {
    const server = await startServer({ DATA_DIR: path.join(cwd, 'sigterm'), SECRET_KEY: 'x'.repeat(40) }, cwd)
    const { port } = new URL(server.url)
    // A request whose body is still arriving is in flight for certain when the signal lands.
    const body = JSON.stringify({ username: 'nobody', password: 'whatever password' })
    const socket = net.connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    let response = ''
    socket.on('data', (chunk: Buffer) => (response += chunk.toString()))
    socket.write(
      `POST /services/v1/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    )
    await setTimeout(100)
    server.child.kill('SIGTERM')
    await setTimeout(100)
    socket.write(body.slice(10))
    await once(socket, 'end')
    expect(response).toMatch(/^HTTP\/1\.1 401 /)
    expect(response.toLowerCase()).toContain('connection: close')
    expect((await server.exited).code).toBe(0)
    await expect(fetch(`${server.url}/health`)).rejects.toThrow()
  })
})
