// `npm run migrate` and `npm run create-superuser`, run as real processes on either database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase } from '../../src/db/database.js'
import type { DatabaseHandle } from '../../src/db/database.js'
import { createTestDatabase } from '../helpers/app.js'
import { emptyDirectory, runEntry } from '../helpers/process.js'

let env: Record<string, string>
let drop: () => Promise<void>
let cwd: string
let database: DatabaseHandle

beforeAll(async () => {
  const created = await createTestDatabase()
  env = { ...created.env, LOG_LEVEL: 'silent' }
  drop = created.drop
  cwd = await emptyDirectory()
})
afterAll(async () => {
  await database?.close()
  await drop()
})

async function run(entry: string, args: string[], extraEnv: Record<string, string> = {}) {
  const child = runEntry(entry, args, { ...env, ...extraEnv }, cwd)
  const { code } = await child.exited
  return { code, stdout: child.stdout(), stderr: child.stderr() }
}

describe('migrate', () => {
  it('applies every migration once, then has nothing to do', async () => {
    const first = await run('src/cli/migrate.ts', [])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/applied: 2026-11-21-01-users-and-tiers/)
    const second = await run('src/cli/migrate.ts', [])
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(/nothing to apply/)
  })
})

describe('create-superuser', () => {
  it('creates a superuser from flags, then promotes instead of duplicating', async () => {
    const result = await run('src/cli/create-superuser.ts', ['--email', 'cli@example.com', '--username', 'cli_admin', '--password', 'cli password 1'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/created superuser #\d+ \(cli_admin\)/)
    const again = await run('src/cli/create-superuser.ts', ['--email', 'cli@example.com', '--username', 'cli_admin', '--password', 'cli password 1'])
    expect(again.stdout).toMatch(/promoted existing superuser/)

    database = await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
    const rows = await database.db.selectFrom('users').select(['username', 'is_superuser', 'hashed_password']).execute()
    expect(rows).toHaveLength(1)
    expect(Boolean(rows[0]?.is_superuser)).toBe(true)
    expect(rows[0]?.hashed_password).toMatch(/^\$argon2id\$/)
  })

  it('falls back to ADMIN_* settings', async () => {
    const result = await run('src/cli/create-superuser.ts', [], {
      ADMIN_EMAIL: 'env@example.com',
      ADMIN_USERNAME: 'env_admin',
      ADMIN_PASSWORD: 'env password 1',
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/created superuser #\d+ \(env_admin\)/)
  })

  it('refuses invalid input and missing values without touching the database', async () => {
    const invalid = await run('src/cli/create-superuser.ts', ['--email', 'bad', '--username', 'BAD NAME', '--password', 'short'])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toMatch(/--email/)
    expect(invalid.stderr).toMatch(/--username/)
    const missing = await run('src/cli/create-superuser.ts', ['--email', 'x@example.com'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/usage/)
  })
})
