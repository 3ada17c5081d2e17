// `npm run backup` and `npm run restore` as real processes, and scheduled backups of a running
// server: a backup taken while writes go on holds every write acknowledged before it began; a
// corrupt or foreign file is refused with the live data untouched; a restore waits for the
// server to stop. The embedded database only: on PostgreSQL both commands point at pg_dump.
import { createHash } from 'node:crypto'
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { checkBackup } from '../../src/db/sqlite-backup.js'
import SqliteDatabase from '../../src/db/sqlite-driver.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect,TEST_SECRET_KEY } from '../helpers/app.js'
import { emptyDirectory, runEntry, startServer } from '../helpers/process.js'
import { seedAndLogin,V2 } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'

const onSqlite = dialect() === 'sqlite'

async function run(entry: string, args: string[], env: Record<string, string>, cwd: string) {
  const child = runEntry(entry, args, { LOG_LEVEL: 'silent', SECRET_KEY: TEST_SECRET_KEY, ...env }, cwd)
  const { code } = await child.exited
  return { code, stdout: child.stdout(), stderr: child.stderr() }
}

const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex')

function postIdsIn(file: string): Set<number> {
  const db = new SqliteDatabase(file, { readonly: true })
  try {
    return new Set((db.prepare('select id from posts').all() as { id: number }[]).map((row) => row.id))
  } finally {
    db.close()
  }
}

describe.skipIf(!onSqlite)('backups of the embedded database', () => {
  let t: TestApp
  let cwd: string
  let work: string
  let backup: string

  beforeAll(async () => {
    t = await createTestApp()
    cwd = await emptyDirectory()
    work = await emptyDirectory()
    // In a folder that does not exist yet: the backup makes it.
    backup = path.join(work, 'copies', 'during-writes.db')
    // Enough rows that the copy takes a while: about 8 MB of posts.
    const writer = await seedAndLogin(t.app)
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 40000)
      insert into posts (author_id, title, text, created_at, updated_at)
      select ${writer.user.id}, 'Filler ' || i, printf('%.200c', 'x'), ${new Date().toISOString()}, ${new Date().toISOString()} from n`.execute(t.db)
  })
  afterAll(() => t.close())

  it('copies while writes go on, and the copy holds every write acknowledged before it began', async () => {
    const writer = await seedAndLogin(t.app)
    const acknowledged: number[] = []
    const failures: string[] = []
    let writing = true
    const writes = (async () => {
      for (let n = 0; writing; n++) {
        const response = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers: writer.headers, payload: { title: `During ${n}`, text: 'written while the backup runs' } })
        if (response.statusCode === 201) acknowledged.push(response.json().id as number)
        else failures.push(`${response.statusCode} ${response.body}`)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    await waitFor(() => acknowledged.length >= 20)

    const before = [...acknowledged]
    const result = await run('src/cli/backup.ts', [backup], { DATA_DIR: t.env.DATA_DIR ?? '' }, cwd)
    const duringBackup = acknowledged.length - before.length
    writing = false
    await writes

    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^backed up .* to .*during-writes\.db \([\d.]+ MiB, \d+ ms\)/)
    expect(failures).toEqual([])
    expect(duringBackup).toBeGreaterThan(0)
    expect(() => checkBackup(backup)).not.toThrow()
    const copied = postIdsIn(backup)
    expect(before.filter((id) => !copied.has(id))).toEqual([])
    expect(copied.size).toBeGreaterThanOrEqual(40_000 + before.length)
  })

  it('never overwrites a file', async () => {
    const result = await run('src/cli/backup.ts', [backup], { DATA_DIR: t.env.DATA_DIR ?? '' }, cwd)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^backup failed: .*during-writes\.db exists already; choose a new file name/)
  })

  describe('restore', () => {
    let dataDir: string
    let live: string
    beforeAll(async () => {
      dataDir = path.join(work, 'restore-target')
      await mkdir(dataDir)
      live = path.join(dataDir, 'app.db')
      await copyFile(backup, live)
    })

    it.each([
      ['a file that is not a database', async (file: string) => writeFile(file, 'not a database at all, just text'.repeat(200)), /is not a usable SQLite database/],
      [
        'a database with corrupted pages',
        async (file: string) => {
          const bytes = await readFile(backup)
          bytes.fill(0x5a, 8192, bytes.length - 8192)
          await writeFile(file, bytes)
        },
        /failed the integrity check|is not a usable SQLite database/,
      ],
      [
        'a database of something else',
        async (file: string) => {
          const other = new SqliteDatabase(file)
          other.exec('create table notes (id integer primary key, body text)')
          other.close()
        },
        /is not a database of this service/,
      ],
      [
        'a backup from a newer version',
        async (file: string) => {
          await copyFile(backup, file)
          const newer = new SqliteDatabase(file)
          newer.prepare("insert into kysely_migration (name, timestamp) values ('2099-01-01-01-from-the-future', '2099-01-01')").run()
          newer.close()
        },
        /was written by a newer version \(unknown migrations: 2099-01-01-01-from-the-future\)/,
      ],
    ])('refuses %s and leaves the live data untouched', async (_case, make, message) => {
      const file = path.join(work, `bad-${Math.random().toString(16).slice(2)}.db`)
      await make(file)
      const before = await sha256(live)
      const result = await run('src/cli/restore.ts', [file], { DATA_DIR: dataDir }, cwd)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^restore refused: /)
      expect(result.stderr).toMatch(message)
      expect(await sha256(live)).toBe(before)
      expect((await readdir(dataDir)).filter((name) => name.startsWith('app.db.'))).toEqual([])
    })

    it('refuses while a server uses the data directory, and restores once it stopped', async () => {
      const server = await startServer({ DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'info' }, cwd)
      const listed = (await fetch(`${server.url}/api/v2/posts/`).then((response) => response.json())) as { total_count: number }
      expect(listed.total_count).toBeGreaterThan(0)
      const refused = await run('src/cli/restore.ts', [backup], { DATA_DIR: dataDir }, cwd)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(new RegExp(`^restore refused: a server is using .* \\(pid ${server.child.pid}\\); stop it before restoring`))

      server.child.kill('SIGTERM')
      expect((await server.exited).code).toBe(0)
      const restored = await run('src/cli/restore.ts', [backup], { DATA_DIR: dataDir }, cwd)
      expect(restored.code, restored.stderr).toBe(0)
      expect(restored.stdout).toMatch(/^restored .*during-writes\.db into .*; the database it replaced is kept as .*app\.db\.before-restore-/)
      expect(await sha256(live)).toBe(await sha256(backup))
      expect((await readdir(dataDir)).filter((name) => name.startsWith('app.db.before-restore-'))).toHaveLength(1)
    })
  })

  it('makes scheduled backups in DATA_DIR/backups and keeps the newest BACKUP_KEEP', async () => {
    const dataDir = path.join(work, 'scheduled')
    // 0.0003 hours: about one second.
    const server = await startServer({ DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, BACKUP_INTERVAL_HOURS: '0.0003', BACKUP_KEEP: '2' }, cwd)
    try {
      await waitFor(() => (server.stdout().match(/scheduled backup written/g) ?? []).length >= 3)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
    const names = (await readdir(path.join(dataDir, 'backups'))).sort()
    expect(names).toHaveLength(2)
    for (const name of names) {
      expect(name).toMatch(/^app-\d{4}-\d\d-\d\dT[\d-]+Z\.db$/)
      expect(() => checkBackup(path.join(dataDir, 'backups', name))).not.toThrow()
    }
  })
})

describe.skipIf(onSqlite)('backup and restore on PostgreSQL', () => {
  it('point at pg_dump and pg_restore instead', async () => {
    const cwd = await emptyDirectory()
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', DATA_DIR: cwd }
    const backup = await run('src/cli/backup.ts', ['copy.db'], env, cwd)
    expect(backup.code).toBe(1)
    expect(backup.stderr).toMatch(/back up PostgreSQL with pg_dump/)
    const restore = await run('src/cli/restore.ts', ['copy.db'], env, cwd)
    expect(restore.code).toBe(1)
    expect(restore.stderr).toMatch(/restore PostgreSQL with pg_restore/)
  })
})
