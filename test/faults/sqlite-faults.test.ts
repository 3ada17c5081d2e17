// The SQLite file locked by another process, or made read-only under a running service:
// writes answer 503 with a clear detail, reads go on, nothing crashes, and the service is
// whole again once the file is.
import { execFileSync } from 'node:child_process'
import path from 'node:path'

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import SqliteDatabase from '../../src/db/sqlite-driver.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { seedUser, userFields,V1 } from '../helpers/users.js'

/** `chattr +i` makes a file immutable even for root; not every filesystem supports it. */
function chattrWorks(dir: string): boolean {
  try {
    execFileSync('chattr', ['-i', dir])
    return true
  } catch {
    return false
  }
}

describe.skipIf(dialect() !== 'sqlite')('SQLite faults', () => {
  let t: TestApp
  let file: string
  beforeAll(async () => {
    t = await createTestApp()
    file = path.join(t.config.dataDir, 'app.db')
  })
  afterAll(() => t?.close())

  const create = () => t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: userFields() })

  it('answers 503 to writes while another connection holds the write lock, and recovers', async () => {
    const user = await seedUser(t.app)
    const other = new SqliteDatabase(file)
    other.exec('begin exclusive')
    try {
      expectError(await create(), 503, 'Service unavailable')
      expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).statusCode).toBe(200)
      expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200)
    } finally {
      other.exec('rollback')
      other.close()
    }
    expect((await create()).statusCode).toBe(201)
  })

  it('answers 503 to writes while the file is read-only, and recovers', async (context) => {
    if (!chattrWorks(file)) context.skip('chattr +i is not supported here')
    const user = await seedUser(t.app)
    const files = [file, `${file}-wal`]
    execFileSync('chattr', ['+i', ...files])
    try {
      expectError(await create(), 503, 'Service unavailable')
      expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).statusCode).toBe(200)
    } finally {
      execFileSync('chattr', ['-i', ...files])
    }
    expect((await create()).statusCode).toBe(201)
    const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(t.db)
    expect(rows[0]?.integrity_check).toBe('ok')
  })
})
