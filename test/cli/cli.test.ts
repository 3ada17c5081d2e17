// `npm run migrate`, `npm run create-superuser`, `npm run rotate-signing-key` and `npm run rebuild-search-index`, run as real processes on either database.
import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import path from 'node:path'

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { DatabaseHandle } from '../../src/db/database.js'
import { createDatabase } from '../../src/db/database.js'
import { createTestDatabase } from '../helpers/app.js'
import { emptyDirectory, runEntry, runEntryOnTerminal } from '../helpers/process.js'

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

describe('the npm scripts', () => {
  it('run a command without building first', async () => {
    const root = path.resolve(import.meta.dirname, '../..')
    const started = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['run', '--silent', 'migrate'], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.on('exit', (code) => resolve({ code, stdout, stderr }))
    })
    // After the migrate tests above: the same database, nothing left to apply, and no build on the way.
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toMatch(/nothing to apply/)
    expect(`${started.stdout}${started.stderr}`).not.toMatch(/tsc|vite|building/i)
  })
})

describe('create-superuser', () => {
  it('creates a superuser from flags, then finds it instead of duplicating', async () => {
    const result = await run('src/cli/create-superuser.ts', ['--email', 'cli@example.com', '--username', 'cli_admin', '--password', 'cli password 1'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/created superuser #\d+ \(cli_admin\)/)
    const again = await run('src/cli/create-superuser.ts', ['--email', 'cli@example.com', '--username', 'cli_admin', '--password', 'cli password 1'])
    expect(again.stdout).toMatch(/found existing superuser/)

    database = await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
    const rows = await database.db.selectFrom('users').select(['username', 'is_superuser', 'hashed_password']).execute()
    expect(rows).toHaveLength(1)
    expect(Boolean(rows[0]?.is_superuser)).toBe(true)
    expect(rows[0]?.hashed_password).toMatch(/^\$argon2id\$/)
  })

  it('promotes an ordinary account only with --promote-existing', async () => {
    const base = ['--email', 'plain@example.com', '--username', 'plain_user', '--password', 'plain password 1']
    // An ordinary account holding that username (created as the API would, not a superuser).
    const created = await run('src/cli/create-superuser.ts', base)
    expect(created.code, created.stderr).toBe(0)
    database ??= await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
    await database.db.updateTable('users').set({ is_superuser: 0 }).where('username', '=', 'plain_user').execute()

    const refused = await run('src/cli/create-superuser.ts', base)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/not a superuser.*ADMIN_PROMOTE_EXISTING/)
    const promoted = await run('src/cli/create-superuser.ts', [...base, '--promote-existing'])
    expect(promoted.code, promoted.stderr).toBe(0)
    expect(promoted.stdout).toMatch(/promoted existing superuser #\d+ \(plain_user\)/)
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

  it('asks on a terminal for what it lacks, the password without echo', async () => {
    const terminal = runEntryOnTerminal('src/cli/create-superuser.ts', env, cwd)
    await terminal.answer('Email: ', 'asked@example.com')
    await terminal.answer('Username: ', 'asked_admin')
    await terminal.answer('Name (Administrator): ', 'Asked Admin')
    await terminal.answer('Password: ', 'a password typed 1')
    const { code } = await terminal.exited
    expect(code, terminal.stdout()).toBe(0)
    expect(terminal.stdout()).toMatch(/created superuser #\d+ \(asked_admin\)/)
    expect(terminal.stdout()).not.toContain('a password typed 1')
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

describe('rotate-signing-key', () => {
  const keys = async () => {
    database ??= await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
    return database.db.selectFrom('signing_keys').select(['kid', 'retired_at']).orderBy('created_at').execute()
  }

  it('makes a new key and retires the others, or with --drop-old deletes them', async () => {
    const first = await run('src/cli/rotate-signing-key.ts', [])
    expect(first.code, first.stderr).toBe(0)
    const [kid] = /signing key (\S+) \(EdDSA\) signs from now on/.exec(first.stdout)!.slice(1)
    const second = await run('src/cli/rotate-signing-key.ts', [])
    expect(second.code, second.stderr).toBe(0)
    const afterSecond = await keys()
    expect(afterSecond.find((key) => key.kid === kid)?.retired_at).not.toBeNull()
    expect(afterSecond.filter((key) => key.retired_at === null)).toHaveLength(1)
    const dropped = await run('src/cli/rotate-signing-key.ts', ['--drop-old'])
    expect(dropped.code, dropped.stderr).toBe(0)
    expect(dropped.stdout).toMatch(/deleted/)
    const [newest] = /signing key (\S+) /.exec(dropped.stdout)!.slice(1)
    expect((await keys()).map((key) => key.kid)).toEqual([newest])
  })

  it('refuses unknown arguments, and has nothing to rotate with HS256 or a key in JWT_PRIVATE_KEY', async () => {
    expect((await run('src/cli/rotate-signing-key.ts', ['--now'])).stderr).toMatch(/usage/)
    const hs256 = await run('src/cli/rotate-signing-key.ts', [], { JWT_ALGORITHM: 'HS256' })
    expect(hs256.code).toBe(2)
    expect(hs256.stderr).toMatch(/SECRET_KEY_PREVIOUS/)
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const given = await run('src/cli/rotate-signing-key.ts', [], { JWT_PRIVATE_KEY: pem })
    expect(given.code).toBe(2)
    expect(given.stderr).toMatch(/JWT_PRIVATE_KEY_PREVIOUS/)
  })
})

describe('rebuild-search-index', () => {
  it('writes every post\'s and comment\'s entry again: those written around the service are found once it ran', async () => {
    const superuser = await run('src/cli/create-superuser.ts', ['--email', 'search@example.com', '--username', 'search_admin', '--password', 'cli password 1'])
    expect(superuser.code, superuser.stderr).toBe(0)
    database ??= await createDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? '' })
    const { db } = database
    const author = await db.selectFrom('users').select('id').where('username', '=', 'search_admin').executeTakeFirstOrThrow()
    const marker = `rebuild${Date.now()}`
    const post = await db.insertInto('posts').values({ author_id: author.id, title: `${marker} title`, text: 'body', slug: marker, slug_scope: `u:${author.id}`, created_at: new Date().toISOString(), updated_at: new Date().toISOString() } as never).returning('id').executeTakeFirstOrThrow()
    const now = new Date().toISOString()
    const comment = await db.insertInto('comments').values({ post_id: post.id, author_id: author.id, parent_id: null, text: `${marker} said`, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()
    const rebuilt = await run('src/cli/rebuild-search-index.ts', [])
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    expect(rebuilt.stdout).toMatch(/search index written again for \d+ posts and \d+ comments/)
    const postgres = env.DATABASE_URL?.startsWith('postgres')
    const found = postgres
      ? await sql<{ id: number }>`select post_id as id from post_search where document @@ to_tsquery('simple', ${marker})`.execute(db)
      : await sql<{ id: number }>`select rowid as id from post_search where post_search match ${`"${marker}"`}`.execute(db)
    expect(found.rows.map((row) => Number(row.id))).toEqual([post.id])
    const foundComments = postgres
      ? await sql<{ id: number }>`select comment_id as id from comment_search where document @@ to_tsquery('simple', ${marker})`.execute(db)
      : await sql<{ id: number }>`select rowid as id from comment_search where comment_search match ${`"${marker}"`}`.execute(db)
    expect(foundComments.rows.map((row) => Number(row.id))).toEqual([comment.id])
    expect((await run('src/cli/rebuild-search-index.ts', ['--now'])).stderr).toMatch(/usage/)
  })
})
