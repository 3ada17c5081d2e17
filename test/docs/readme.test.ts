// The README's curl walkthrough, run as written against a real server on each database:
// if the README drifts from the API, this fails.
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { createTestDatabase,TEST_SECRET_KEY } from '../helpers/app.js'
import { PNG_1X1 } from '../helpers/multipart.js'
import type { RunningProcess } from '../helpers/process.js'
import { emptyDirectory, startServer } from '../helpers/process.js'

const run = promisify(execFile)
let server: (RunningProcess & { url: string }) | undefined
let drop: () => Promise<void>
let cwd: string

beforeAll(async () => {
  const database = await createTestDatabase()
  drop = database.drop
  cwd = await emptyDirectory()
  server = await startServer({ ...database.env, SECRET_KEY: TEST_SECRET_KEY }, cwd)
})
afterAll(async () => {
  server?.child.kill('SIGTERM')
  await server?.exited
  await drop()
})

/** The README's `n`-th sh block of the curl walkthrough (v1's, then v2's). */
async function walkthrough(n = 0): Promise<string> {
  const readme = await readFile(path.resolve(import.meta.dirname, '../../README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Try it with curl'))
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)][n]?.[1]
  if (!block) throw new Error('README has no such curl walkthrough')
  return block
}

it('runs from sign-up to account deletion as documented', async () => {
  const script = (await walkthrough())
    .replace('API=http://localhost:8000/services/v1', `API=${server?.url}/services/v1`)
    .replace(/\\\n\s*/g, ' ') // join continued lines
  await writeFile(path.join(cwd, 'avatar.png'), PNG_1X1)
  // Print each step's output on its own line so the assertions can find them.
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.replace(/^(curl .*)$/gm, '$1; echo')], { cwd })
  const lines = stdout.trim().split('\n')
  const json = lines.map((line) => JSON.parse(line) as Record<string, unknown>)

  expect(json[0]).toMatchObject({ id: 1, username: 'ada', email: 'ada@example.com' }) // sign up
  expect(json[1]).toMatchObject({ id: 1, username: 'ada' }) // me
  expect(json[2]).toMatchObject({ id: 1 }) // patch
  expect(json[3]).toMatchObject({ total_count: 1, page: 1 }) // list
  expect(json[4]).toEqual([expect.objectContaining({ username: 'ada' })]) // search
  expect(json[5]).toMatchObject({ profile_image_url: expect.stringMatching(/^\/media\/avatars\/.+\.png$/) }) // avatar
  expect(json[6]).toMatchObject({ id: 1, author_id: 1, title: 'Notes on the Analytical Engine' }) // write
  expect(json[7]).toMatchObject({ id: 1, title: 'Note G' }) // edit
  expect(json[8]).toEqual([expect.objectContaining({ id: 1 })]) // list posts
  expect(json[9]).toEqual([expect.objectContaining({ id: 1 })]) // search posts
  expect(json[10]).toMatchObject({ id: 1, title: 'Note G' }) // get post
  expect(json[11]).toEqual({ message: 'Post deleted' })
  expect(json[12]).toEqual({ message: 'Logged out successfully' })
  expect(json[13]).toEqual({ message: 'User deleted' })
  expect(json).toHaveLength(14)
})

it("runs version 2's session as documented", async () => {
  const script = (await walkthrough(1)).replace('API=http://localhost:8000/api/v2', `API=${server?.url}/api/v2`).replace(/\\\n\s*/g, ' ')
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.replace(/^(curl .*)$/gm, '$1; echo')], { cwd })
  const json = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  expect(json[0]).toMatchObject({ username: 'grace', email: 'grace@example.com' }) // me
  expect(json[1]).toMatchObject({ title: 'First compiler' }) // write
  expect(json[2]).toMatchObject({ data: [expect.objectContaining({ title: 'First compiler' })] }) // list
  expect(json[3]).toMatchObject({ title: 'COBOL', visibility: 'private', status: 'draft', published_at: null }) // a private draft
  expect(json[4]).toMatchObject({ total_count: 1, data: [expect.objectContaining({ title: 'COBOL' })] }) // the caller's drafts
  expect(json).toHaveLength(5)
})

it('stays short, and every code block it opens names its language and is closed', async () => {
  const readme = await readFile(path.resolve(import.meta.dirname, '../../README.md'), 'utf8')
  expect(readme.split('\n').length).toBeLessThanOrEqual(220)
  const fences = [...readme.matchAll(/^```(\S*)$/gm)].map((match) => match[1])
  expect(fences.length % 2).toBe(0)
  // Openings and closings alternate: an opening names a language, a closing names none.
  expect(fences.filter((_, index) => index % 2 === 0).every((language) => language !== '')).toBe(true)
  expect(fences.filter((_, index) => index % 2 === 1).every((language) => language === '')).toBe(true)
})
