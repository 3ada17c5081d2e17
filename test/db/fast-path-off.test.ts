// FAST_PATH=off: no query skips Kysely's stock pipeline, and the API answers exactly as with the
// speed layer on (the data-path tests run whole in the -plain projects; this checks the switch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { directExecutorFor } from '../../src/db/fast-path/direct-executor.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { seedAndLogin,V2 } from '../helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ FAST_PATH: 'off' })
})
afterAll(() => t.close())

describe('FAST_PATH=off', () => {
  it('registers no direct path, and reads and writes as usual', async () => {
    expect(t.config.fastPath).toBe(false)
    expect(directExecutorFor(t.db)).toBeUndefined()
    const { user, headers } = await seedAndLogin(t.app)
    const read = await t.app.inject({ url: `${V2}/users/${user.id}` })
    expect(read.json()).toMatchObject({ id: user.id, username: user.username, created_at: user.createdAt })
    expect(read.json().created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const post = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers, payload: { title: 'Plain', text: 'Through Kysely' } })
    expect(post.statusCode).toBe(201)
    const listed = await t.app.inject({ url: `${V2}/posts/?author_id=${user.id}` })
    expect(listed.json().data.map((item: { id: number }) => item.id)).toEqual([post.json().id])
  })
})
