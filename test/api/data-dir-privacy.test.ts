// The data directory and everything in it are the service's owner's only: the database and its
// WAL, avatars, mails, backups, and what an earlier version left readable.
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { backupDatabase } from '../../src/db/sqlite-backup.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { multipart, PNG_1X1 } from '../helpers/multipart.js'
import type { LoggedIn } from '../helpers/users.js'
import { seedAndLogin, V2 } from '../helpers/users.js'

let t: TestApp
let me: LoggedIn
beforeAll(async () => {
  t = await createTestApp((databaseEnv) => {
    // What an older version left behind: world-readable.
    const dataDir = databaseEnv.DATA_DIR ?? ''
    mkdirSync(path.join(dataDir, 'avatars'), { recursive: true, mode: 0o755 })
    writeFileSync(path.join(dataDir, 'avatars', 'old.png'), PNG_1X1, { mode: 0o644 })
    chmodSync(dataDir, 0o755)
    return { AVATAR_STORAGE: 'disk', MAIL_TRANSPORT: 'file' }
  })
  me = await seedAndLogin(t.app)
})
afterAll(() => t.close())

function everything(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name)
    return entry.isDirectory() ? [full, ...everything(full)] : [full]
  })
}

it('is owner-only, with everything the service writes into it', async () => {
  const upload = multipart([{ field: 'file', filename: 'avatar.png', contentType: 'image/png', data: PNG_1X1 }])
  expect((await t.app.inject({ method: 'POST', url: `${V2}/users/${me.user.id}/avatar`, ...upload, headers: { ...upload.headers, ...me.headers } })).statusCode).toBe(200)
  expect((await t.app.inject({ method: 'POST', url: `${V2}/email-verification`, headers: me.headers })).statusCode).toBe(202)
  const { dataDir } = t.config
  if (dialect() === 'sqlite') await backupDatabase(dataDir, path.join(dataDir, 'backups', 'now.db'))
  await expect.poll(() => everything(dataDir).some((file) => file.endsWith('.eml'))).toBe(true)

  const entries = [dataDir, ...everything(dataDir)]
  expect(entries.some((file) => file.includes('avatars'))).toBe(true)
  const readable = entries.filter((file) => (statSync(file).mode & 0o077) !== 0).map((file) => `${path.relative(dataDir, file) || '.'} ${(statSync(file).mode & 0o777).toString(8)}`)
  expect(readable).toEqual([])
})
