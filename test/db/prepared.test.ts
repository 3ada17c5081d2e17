// Prepared queries take a direct path on SQLite when no transaction holds the connection; while
// one does, they must wait for it instead of reading its uncommitted changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findUserById } from '../../src/modules/users/users.repository.js'
import { createTestApp } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'
import { seedUser } from '../helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('prepared queries', () => {
  it('return the same rows as the query they were compiled from, for every argument', async () => {
    const users = await Promise.all([seedUser(t.app), seedUser(t.app), seedUser(t.app)])
    for (const user of users) expect((await findUserById(t.app.db, user.id))?.username).toBe(user.username)
    expect(await findUserById(t.app.db, 999_999)).toBeUndefined()
  })

  it('never see a transaction that is still open', async () => {
    const user = await seedUser(t.app, { name: 'Before Commit' })
    let committed = false
    let releaseTransaction!: () => void
    const held = new Promise<void>((resolve) => (releaseTransaction = resolve))
    let updated!: () => void
    const updateDone = new Promise<void>((resolve) => (updated = resolve))

    const transaction = t.app.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'After Commit' }).where('id', '=', user.id).execute()
      updated()
      await held
    })
    await updateDone
    const read = findUserById(t.app.db, user.id).then((found) => ({ name: found?.name, committed }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    committed = true
    releaseTransaction()
    await transaction

    const { name, committed: readAfterCommit } = await read
    // PostgreSQL reads the committed state at once; SQLite's single connection waits for the commit.
    if (name === 'After Commit') expect(readAfterCommit).toBe(true)
    else expect(name).toBe('Before Commit')
  })
})
