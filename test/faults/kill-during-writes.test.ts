// kill -9 in the middle of a stream of writes: after a restart every write that was answered
// 201 is there, whole, and the database is consistent (integrity, exact counts).
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createDatabase } from '../../src/db/database.js'
import { createTestDatabase, dialect,TEST_SECRET_KEY } from '../helpers/app.js'
import { countLiveRows } from '../helpers/counts.js'
import { emptyDirectory, startServer } from '../helpers/process.js'
import { DEFAULT_PASSWORD, userFields } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'

let env: Record<string, string>
let drop: () => Promise<void>
let cwd: string
beforeAll(async () => {
  const database = await createTestDatabase()
  env = { ...database.env, SECRET_KEY: TEST_SECRET_KEY, LOGIN_RATE_LIMIT: '100000' }
  drop = database.drop
  cwd = await emptyDirectory()
})
afterAll(() => drop())

interface Written {
  users: { id: number; email: string }[]
  posts: { id: number; title: string }[]
}

/** Writes users and posts in parallel streams until the server stops answering. */
async function writeUntilKilled(url: string, token: string, written: Written): Promise<void> {
  const json = { 'content-type': 'application/json' }
  const userStream = async () => {
    for (;;) {
      const fields = userFields()
      const response = await fetch(`${url}/services/v1/users/`, { method: 'POST', headers: json, body: JSON.stringify(fields) })
      if (response.status === 201) written.users.push({ id: ((await response.json()) as { id: number }).id, email: fields.email })
    }
  }
  const postStream = async (stream: number) => {
    for (let i = 0; ; i++) {
      const title = `stream ${stream} post ${i}`
      const response = await fetch(`${url}/services/v1/posts/`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ title, text: 'durable' }),
      })
      if (response.status === 201) written.posts.push({ id: ((await response.json()) as { id: number }).id, title })
    }
  }
  // Every stream ends when its connection is cut by the kill.
  await Promise.allSettled([userStream(), userStream(), postStream(1), postStream(2), postStream(3)])
}

describe(`kill -9 during writes (${dialect()})`, () => {
  it('keeps every acknowledged write, and nothing half-written', async () => {
    const first = await startServer(env, cwd)
    const author = userFields()
    await fetch(`${first.url}/services/v1/users/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(author) })
    const login = await fetch(`${first.url}/services/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: author.username, password: DEFAULT_PASSWORD }),
    })
    const { access_token: token } = (await login.json()) as { access_token: string }

    const written: Written = { users: [], posts: [] }
    const writing = writeUntilKilled(first.url, token, written)
    // Killed in the middle of the writes, once some of each kind were acknowledged.
    await waitFor(() => written.users.length > 0 && written.posts.length > 10)
    first.child.kill('SIGKILL')
    await first.exited
    await writing
    expect(written.users.length).toBeGreaterThan(0)
    expect(written.posts.length).toBeGreaterThan(10)

    const second = await startServer(env, cwd)
    try {
      for (const user of written.users) {
        const response = await fetch(`${second.url}/services/v1/users/${user.id}`)
        expect(response.status).toBe(200)
        expect(((await response.json()) as { email: string }).email).toBe(user.email)
      }
      for (const post of written.posts) {
        const response = await fetch(`${second.url}/services/v1/posts/${post.id}`)
        expect(response.status).toBe(200)
        expect(((await response.json()) as { title: string }).title).toBe(post.title)
      }
      const listing = (await (await fetch(`${second.url}/services/v1/users/`)).json()) as { total_count: number }
      const postPage = (await (await fetch(`${second.url}/api/v2/posts/`)).json()) as { total_count: number }

      const database = await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
      try {
        // The counters moved with exactly the rows that were committed.
        expect({ users: listing.total_count, posts: postPage.total_count }).toEqual(await countLiveRows(database.db))
        const broken = await database.db
          .selectFrom('users')
          .select('id')
          .where((eb) => eb.or([eb('hashed_password', 'not like', '$argon2id$%'), eb('email', '=', ''), eb('username', '=', '')]))
          .execute()
        expect(broken).toEqual([])
        if (dialect() === 'sqlite') {
          const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db)
          expect(rows[0]?.integrity_check).toBe('ok')
        }
      } finally {
        await database.close()
      }
    } finally {
      second.child.kill('SIGTERM')
      await second.exited
    }
  })
})
