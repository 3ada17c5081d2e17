// Breached passwords against a local server speaking Have I Been Pwned's range API (padding
// included), and against a local file of hashes: refused where a password is set, flagged where
// one logs in, each prefix asked once, only the prefix leaving the service, and an outage let
// through or refused as BREACHED_PASSWORDS_FAIL says, recorded either way.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { RangeServer } from '../../../test/helpers/hibp.js'
import { sha1Hex, startRangeServer } from '../../../test/helpers/hibp.js'
import { seedAndLogin, seedUser, userFields, V1, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'
import { HashFileList } from './breached-passwords.js'

const BREACHED = 'correct horse battery staple'
const signUp = (t: TestApp, password: string) => t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...userFields(), password, accept_terms: true } })

describe("Have I Been Pwned's range API", () => {
  let range: RangeServer
  let t: TestApp
  beforeAll(async () => {
    range = await startRangeServer({ [BREACHED]: 3_861_493, 'another leaked phrase': 2 })
    t = await createTestApp({ BREACHED_PASSWORDS: 'hibp', HIBP_RANGE_URL: range.url })
  })
  afterAll(async () => {
    await t.close()
    await range.close()
  })

  it('refuses a breached password at sign-up with how often it was seen, and sends only the prefix, padded', async () => {
    const refused = await signUp(t, BREACHED)
    expectError(refused, 400, /3861493 data breaches/, 'password_breached')
    expect(refused.json().breach_count).toBe(3_861_493)
    const asked = range.requests.at(-1)!
    expect(asked).toEqual({ path: `/range/${sha1Hex(BREACHED).slice(0, 5)}`, padding: true })
    expect(JSON.stringify(range.requests)).not.toContain(sha1Hex(BREACHED).slice(5))
    expect((await signUp(t, 'a phrase nobody has leaked 42')).statusCode).toBe(201)
    expect(await t.db.selectFrom('security_events').select('type').where('type', '=', 'password_breached_refused').execute()).toHaveLength(1)
  })

  it('asks each prefix once: the next check of it is answered from the cache', async () => {
    await signUp(t, 'another leaked phrase')
    const before = range.requests.length
    expectError(await signUp(t, 'another leaked phrase'), 400, undefined, 'password_breached')
    expect(range.requests.length).toBe(before)
  })

  it('refuses a breached password on a change, a reset and a v1 sign-up', async () => {
    const someone = await seedAndLogin(t.app)
    expectError(
      await t.app.inject({ method: 'POST', url: `${V2}/users/me/password`, headers: someone.headers, payload: { current_password: someone.user.password, new_password: BREACHED } }),
      400,
      undefined,
      'password_breached',
    )
    expectError(await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: { ...userFields(), password: BREACHED } }), 400, undefined, 'password_breached')
  })

  it('lets a login with a breached password through, and says so', async () => {
    const user = await seedUser(t.app)
    const hashed = await t.app.services.passwords.hash(BREACHED)
    await t.db.updateTable('users').set({ hashed_password: hashed }).where('id', '=', user.id).execute()
    const login = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: user.username, password: BREACHED } })
    expect(login.statusCode).toBe(200)
    expect(login.json().password_breached).toBe(true)
    const clean = await seedUser(t.app)
    expect((await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: clean.username, password: clean.password } })).json()).not.toHaveProperty('password_breached')
  })

  it('lets a password through when the list is down (fail open), and records it', async () => {
    range.down = true
    try {
      expect((await signUp(t, 'an unseen phrase while down')).statusCode).toBe(201)
    } finally {
      range.down = false
    }
    expect((await t.db.selectFrom('security_events').select('type').where('type', '=', 'breached_password_check_failed').execute()).length).toBeGreaterThanOrEqual(1)
  })
})

describe('BREACHED_PASSWORDS_FAIL=closed', () => {
  it('refuses with 503 while the list is down', async () => {
    const range = await startRangeServer({})
    range.down = true
    const t = await createTestApp({ BREACHED_PASSWORDS: 'hibp', HIBP_RANGE_URL: range.url, BREACHED_PASSWORDS_FAIL: 'closed' })
    try {
      expectError(await signUp(t, 'closed while it is down'), 503, 'The breached-password list cannot be reached (BREACHED_PASSWORDS_FAIL=closed)', 'service_unavailable')
    } finally {
      await t.close()
      await range.close()
    }
  })

  it('still starts, creating the configured superuser, while the list is down; and refuses a breached one when it answers', async () => {
    const range = await startRangeServer({ [BREACHED]: 12 })
    range.down = true
    const admin = { ADMIN_EMAIL: 'boss@example.com', ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: 'violet sunrise 42' }
    const t = await createTestApp({ BREACHED_PASSWORDS: 'hibp', HIBP_RANGE_URL: range.url, BREACHED_PASSWORDS_FAIL: 'closed', ...admin })
    try {
      const login = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: 'boss', password: admin.ADMIN_PASSWORD } })
      expect(login.statusCode, login.body).toBe(200)
      expect((await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${login.json().access_token}` } })).json()).toMatchObject({ username: 'boss' })
      expect(await t.db.selectFrom('security_events').select('type').where('type', '=', 'breached_password_check_failed').execute()).toHaveLength(1)
      range.down = false
      const breached = { ...t.env, ADMIN_EMAIL: 'other@example.com', ADMIN_USERNAME: 'other_boss', ADMIN_PASSWORD: BREACHED }
      await expect(buildApp({ config: loadConfig(breached), secretKey: TEST_SECRET_KEY })).rejects.toThrow(/ADMIN_PASSWORD: This password has appeared in 12 data breaches/)
    } finally {
      await t.close()
      await range.close()
    }
  })
})

describe('a local file of hashes (BREACHED_PASSWORDS=file:PATH)', () => {
  let directory: string
  let file: string
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'ups-breached-'))
    file = path.join(directory, 'pwned.txt')
    // Ten thousand hashes in HIBP's order, with the two we look for among them.
    const lines = new Map<string, number>()
    for (let index = 0; index < 10_000; index++) lines.set(sha1Hex(`filler ${index}`), index + 1)
    lines.set(sha1Hex(BREACHED), 77)
    lines.set(sha1Hex('first of all'), 5)
    await writeFile(file, [...lines].sort(([a], [b]) => (a < b ? -1 : 1)).map(([hash, count]) => `${hash}:${count}`).join('\r\n'))
  })
  afterAll(() => rm(directory, { recursive: true, force: true }))

  it('finds a hash anywhere in the file by seeking, and not one that is absent', async () => {
    const list = new HashFileList(file)
    try {
      expect(await list.timesSeen(BREACHED)).toBe(77)
      expect(await list.timesSeen('first of all')).toBe(5)
      expect(await list.timesSeen('filler 0')).toBe(1)
      expect(await list.timesSeen('filler 9999')).toBe(10_000)
      expect(await list.timesSeen('not in the file at all')).toBe(0)
    } finally {
      await list.close()
    }
  })

  it('refuses a listed password at sign-up', async () => {
    const t = await createTestApp({ BREACHED_PASSWORDS: `file:${file}` })
    try {
      expect((await signUp(t, BREACHED)).json()).toMatchObject({ code: 'password_breached', breach_count: 77 })
    } finally {
      await t.close()
    }
  })
})
