// The process as an operator runs it: configuration errors, the generated development key,
// listening, and a clean exit on SIGTERM.
import { once } from 'node:events'
import { stat } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { emptyDirectory, runEntry, startServer, waitForOutput } from './helpers/process.js'
import { waitFor } from './helpers/wait.js'

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

describe('an unreachable REDIS_URL', () => {
  it('stops the process with one line naming REDIS_URL, where it points (no password) and why', async () => {
    const server = runEntry('src/server.ts', [], { DATA_DIR: path.join(cwd, 'redis-down'), REDIS_URL: 'redis://:hunter2@127.0.0.1:1' }, cwd)
    expect((await server.exited).code).toBe(1)
    const lines = server.stderr().trim().split('\n')
    expect(lines).toEqual([expect.stringMatching(/^Failed to start: REDIS_URL \(redis:\/\/:\*\*\*@127\.0\.0\.1:1\) is unreachable: connect ECONNREFUSED/)])
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
    // Development says where things are, at the address a browser should use (localhost): the
    // docs, the admin console and the mail it writes.
    const browserUrl = first.url.replace('127.0.0.1', 'localhost')
    expect(first.stdout()).toContain(`API docs: ${browserUrl}/api/v2/docs`)
    expect(first.stdout()).toContain(`Admin console: ${browserUrl}/admin/ (for superusers: npm run create-superuser -- --email you@example.com --username you)`)
    expect(first.stdout()).toContain(`Mail is written to ${path.join(dataDir, 'mail')} and listed at ${browserUrl}/admin/#/mail`)
    const file = await stat(path.join(dataDir, 'secret_key'))
    expect(file.mode & 0o777).toBe(0o600)
    expect((await stat(path.join(dataDir, 'app.db'))).isFile()).toBe(true)

    const second = await startServer({ DATA_DIR: dataDir }, cwd)
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)
    expect(second.stdout()).not.toMatch(/SECRET_KEY is not set/)
  })
})

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'

/**
 * Opens a connection and sends a login request whose body is still arriving: in flight for
 * certain. `Expect: 100-continue` makes the server say when it has taken the request in, so on
 * a busy machine the signal cannot overtake headers the server has not read yet.
 */
async function startLogin(port: number) {
  const body = JSON.stringify({ username: 'nobody', password: 'whatever password' })
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  let response = ''
  let reset = false
  // Listened for from the start: the connection may end before finish() is called.
  const ended = new Promise((resolve) => {
    socket.once('end', resolve)
    socket.once('close', resolve)
  })
  // Any answer (100 Continue, or an early final one the assertions will show) means it was read.
  const accepted = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString()
      resolve()
    })
    void ended.then(() => resolve())
  })
  socket.on('error', () => (reset = true))
  socket.write(
    `POST /services/v1/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  )
  await accepted
  return {
    async finish() {
      socket.write(body.slice(10))
      await ended
      return { response: response.startsWith(CONTINUE) ? response.slice(CONTINUE.length) : response, reset }
    },
  }
}

describe('SIGTERM', () => {
  // Generous timeout: with two test files at once, the logins' argon2 hashes share the cores.
  it('finishes every in-flight request under load, then exits 0 within the grace period', { timeout: 300_000 }, async () => {
    const server = await startServer({ DATA_DIR: path.join(cwd, 'sigterm'), SECRET_KEY: 'x'.repeat(40), LOGIN_RATE_LIMIT: '1000' }, cwd)
    const port = Number(new URL(server.url).port)
    // Background load on keep-alive connections while the signal arrives.
    let loading = true
    let loaded = 0
    const load = Promise.allSettled(
      Array.from({ length: 8 }, async () => {
        while (loading) {
          await fetch(`${server.url}/services/v1/users/`).then((r) => r.arrayBuffer())
          loaded += 1
        }
      }),
    )
    const inFlight = await Promise.all(Array.from({ length: 10 }, () => startLogin(port)))
    // The load is under way on every connection when the signal arrives, and the shutdown has begun before the logins finish.
    await waitFor(() => loaded >= 16)
    server.child.kill('SIGTERM')
    await waitFor(() => /shutting down/.test(server.stdout()))
    const results = await Promise.all(inFlight.map((request) => request.finish()))
    loading = false
    await load

    for (const { response, reset } of results) {
      expect(reset).toBe(false)
      expect(response).toMatch(/^HTTP\/1\.1 401 /)
      expect(response.toLowerCase()).toContain('connection: close')
    }
    // Exit code 0: the server closed by itself (past its grace period it exits with 1).
    expect((await server.exited).code).toBe(0)
    await expect(fetch(`${server.url}/health`)).rejects.toThrow()
  })
})

describe('WORKERS (cluster mode)', () => {
  it('runs that many worker processes on one port, and stops them all on SIGTERM', async () => {
    const server = await startServer({ DATA_DIR: path.join(cwd, 'cluster'), SECRET_KEY: 'x'.repeat(40), WORKERS: '2' }, cwd)
    // One primary and two workers, each logging that it listens: waited for as the lines come,
    // however long a busy machine takes to start the second worker.
    const listening = (stdout: string) => new Set([...stdout.matchAll(/"pid":(\d+),[^\n]*Server listening/g)].map((match) => match[1]))
    const pids = await waitForOutput(server, (stdout) => (listening(stdout).size >= 2 ? listening(stdout) : undefined))
    expect(pids.size).toBe(2)
    expect(server.stdout()).toMatch(/"workers":2/)
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/health`)))
    expect(responses.every((response) => response.status === 200)).toBe(true)
    server.child.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
    for (const pid of pids) expect(() => process.kill(Number(pid), 0)).toThrow()
  }, 300_000)
})

/** Sends a whole login on a connection of its own and leaves once the server has read it, before any answer. */
async function loginAndLeave(port: number, username: string, password: string) {
  const body = JSON.stringify({ username, password })
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write(`POST /services/v1/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`)
  // 100 Continue: the server has taken the request in and waits for its body.
  await once(socket, 'data')
  socket.write(body)
  return socket
}

describe('SIGTERM with request handlers whose clients went away', () => {
  it('lets them finish (every login writes its session) before closing the password pool and the database', { timeout: 300_000 }, async () => {
    const env = { DATA_DIR: path.join(cwd, 'sigterm-abandoned'), SECRET_KEY: 'y'.repeat(40), LOGIN_RATE_LIMIT: '1000' }
    const server = await startServer(env, cwd)
    const port = Number(new URL(server.url).port)
    const account = { name: 'Left Behind', username: 'left_behind', email: 'left@example.com', password: 'a long enough password' }
    expect((await fetch(`${server.url}/services/v1/users/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })).status).toBe(201)
    // More logins than the hashing workers take at once, so some still wait in the pool's queue at the signal.
    const logins = 24
    const sockets = await Promise.all(Array.from({ length: logins }, () => loginAndLeave(port, account.username, account.password)))
    // A request sent after the bodies, answered: the server has read them and the handlers have started.
    expect((await fetch(`${server.url}/health`)).status).toBe(200)
    for (const socket of sockets) socket.destroy()
    server.child.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
    const warnings = server.stdout().split('\n').filter((line) => /"level":(40|50|60)/.test(line))
    expect(warnings).toEqual([])

    const again = await startServer(env, cwd)
    try {
      const login = await fetch(`${again.url}/services/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: account.username, password: account.password }) })
      const { access_token: token } = (await login.json()) as { access_token: string }
      const sessions = (await (await fetch(`${again.url}/services/v1/sessions`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown[]
      expect(sessions).toHaveLength(logins + 1)
    } finally {
      again.child.kill('SIGTERM')
      await again.exited
    }
  })
})
