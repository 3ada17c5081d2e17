// Files across processes, on local disk shared by the servers: uploads at the edge of a quota
// sent to two servers at once pass one at a time; a server killed with SIGKILL in the middle of an
// upload leaves its reservation and half-written bytes, which the other processes give back and
// remove once the upload expires.
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { dialect } from '../../../test/helpers/app.js'
import type { Server, ServersOnOneDatabase } from '../../../test/helpers/servers.js'
import { adminToken, serversOnOneDatabase, signUpAt } from '../../../test/helpers/servers.js'
import { waitFor } from '../../../test/helpers/wait.js'

const FILE_BYTES = 100_000

const startUpload = (server: Server, token: string) =>
  fetch(`${server.url}/api/v2/uploads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'part.txt', size: FILE_BYTES, content_type: 'text/plain' }),
  })

/** Every file under the data directory's files/ folder, partial writes included. */
async function storedFiles(dataDir: string): Promise<string[]> {
  const entries = await readdir(path.join(dataDir, 'files'), { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name)
}

describe(`files across processes (${dialect()})`, () => {
  let servers: ServersOnOneDatabase
  let env: Record<string, string>
  let a: Server
  beforeAll(async () => {
    // Room for one file and a half: of two uploads, one fits.
    servers = await serversOnOneDatabase({ STORAGE_QUOTA_BYTES: String(FILE_BYTES * 1.5), UPLOAD_EXPIRY_SECONDS: '2' })
    env = servers.env
  })
  afterAll(() => servers?.close())

  it('lets exactly one of many uploads at the edge of a quota through, sent to two servers at once', async () => {
    a = await servers.start()
    const b = await servers.start()
    const token = await adminToken(a)
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => startUpload(index % 2 ? a : b, token)))
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses).toEqual([201, ...Array<number>(9).fill(413)])
  })

  it('gives back what an upload killed with SIGKILL midway held, and removes its half-written bytes, once it expires', async () => {
    const victim = await servers.start()
    // Someone new, whose quota the first test did not touch.
    const token = await signUpAt(victim, 'kim')
    // A form upload that sends half its file and waits: the bytes stream to disk under a partial name.
    const boundary = `----kill${randomBytes(6).toString('hex')}`
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`)
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const request = http.request(`${victim.url}/api/v2/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + FILE_BYTES + tail.length },
    })
    request.on('error', () => {})
    let answered = ''
    request.on('response', (response) => response.on('data', (chunk: Buffer) => (answered += chunk.toString())))
    request.write(Buffer.concat([head, Buffer.alloc(FILE_BYTES / 2, 'x')]))
    await waitFor(async () => {
      if (answered) throw new Error(`the upload was answered early: ${answered}`)
      return (await storedFiles(env.DATA_DIR!)).some((name) => name.includes('.partial-'))
    })
    victim.child.kill('SIGKILL')
    await victim.exited
    expect((await storedFiles(env.DATA_DIR!)).some((name) => name.includes('.partial-'))).toBe(true)

    // The surviving processes abandon the expired uploads: another file fits again, and nothing is left on disk.
    await waitFor(async () => {
      const answer = await startUpload(a, token)
      return answer.status === 201
    })
    await waitFor(async () => (await storedFiles(env.DATA_DIR!)).length === 0)
    const usage = (await (await fetch(`${a.url}/api/v2/users/me/usage`, { headers: { authorization: `Bearer ${token}` } })).json()) as { bytes: number; files: number }
    expect(usage).toMatchObject({ bytes: 0, files: 0 })
  })
})
