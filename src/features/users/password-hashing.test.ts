// Password hashing runs in worker threads behind a bounded queue: a flood of logins past the
// queue is a clear 503 with Retry-After (never a wrong password, never a lost request), the
// workers take the priority PASSWORD_HASH_NICE gives them and stop with the app, and the dummy
// hash that equalises unknown users' logins has the real hash's cost.
import { readdirSync, readFileSync } from 'node:fs'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { DEFAULT_PASSWORD, seedUser, V1, V2 } from '../../../test/helpers/users.js'
import { HASHING_BUSY } from './hashing-pool.js'
import { DUMMY_HASH, PASSWORD_HASH_PARAMETERS, PasswordHasher } from './passwords.js'

/** This process's threads at nice 19 (Linux: field 19 of /proc/self/task/<tid>/stat). */
function lowestPriorityThreads(): number {
  let count = 0
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
      if (fields[16] === '19') count += 1
    } catch {
      // The thread ended while we looked.
    }
  }
  return count
}

describe('password hashing', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ PASSWORD_HASH_WORKERS: '1', PASSWORD_HASH_QUEUE: '1' })
    await seedUser(t.app, { username: 'hasher' })
  })
  afterAll(() => t.close())

  const login = (prefix = V1) => t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: { username: 'hasher', password: DEFAULT_PASSWORD } })

  it('answers 503 password_hashing_busy with Retry-After past the queue, and every other login succeeds', async () => {
    // One worker and one waiting place: of twelve logins sent at once, two are hashed in turn
    // and the rest cannot wait.
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => login(index % 2 ? V1 : V2)))
    const busy = responses.filter((response) => response.statusCode === 503)
    const succeeded = responses.filter((response) => response.statusCode === 200)
    expect(busy.length).toBeGreaterThan(0)
    expect(succeeded.length).toBeGreaterThan(0)
    expect(busy.length + succeeded.length).toBe(12)
    for (const response of busy) {
      expectError(response, 503, HASHING_BUSY, 'password_hashing_busy')
      expect(response.headers['retry-after']).toBe('1')
    }
    // Nothing stays stuck: the next login is hashed as usual.
    expect((await login()).statusCode).toBe(200)
  })

  it('never reads a full queue as a wrong password: refused logins do not count as failures', async () => {
    await Promise.all(Array.from({ length: 12 }, () => login()))
    const events = await t.db.selectFrom('security_events').select('type').where('type', '=', 'login_failed').execute()
    expect(events).toHaveLength(0)
  })

  it('with PASSWORD_HASH_NICE=19, hashes in threads of the lowest priority, which stop with the app', async () => {
    const other = await createTestApp({ PASSWORD_HASH_WORKERS: '2', PASSWORD_HASH_NICE: '19' })
    const before = lowestPriorityThreads()
    await seedUser(other.app, { username: 'two_workers' })
    // Two hashes handed to the pool in one tick: the idle worker takes one and a second worker
    // starts for the other. (Two logins could not promise it: one may finish before the other's
    // lookup reaches the pool, and then both use the one worker.)
    await Promise.all([1, 2].map(() => other.app.services.passwords.hash(DEFAULT_PASSWORD)))
    expect(lowestPriorityThreads()).toBeGreaterThanOrEqual(before + 2)
    await other.close()
    expect(lowestPriorityThreads()).toBe(before)
  })

  it('reads a malformed stored hash as a wrong password, and a stopped pool as unavailable, never as one', async () => {
    const hasher = new PasswordHasher({ workers: 1, queue: 1, nice: 0 })
    expect(await hasher.verify('not a hash', DEFAULT_PASSWORD)).toBe(false)
    await hasher.close()
    await expect(hasher.verify(DUMMY_HASH, DEFAULT_PASSWORD)).rejects.toMatchObject({ code: 'service_unavailable' })
  })

  it('keeps the dummy hash at the real parameters, so an unknown user costs a real verification', () => {
    const [, algorithm, , parameters] = DUMMY_HASH.split('$')
    expect(algorithm).toBe('argon2id')
    expect(parameters).toBe(`m=${PASSWORD_HASH_PARAMETERS.memoryCost},t=${PASSWORD_HASH_PARAMETERS.timeCost},p=${PASSWORD_HASH_PARAMETERS.parallelism}`)
  })
})
