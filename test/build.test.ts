// The built service: `npm run build` bundles src/server.ts and the CLI commands into dist/
// (scripts/build.mjs), and `npm start`, the container and the benchmark run that, while the rest
// of the suite runs the sources through tsx. Here a fresh build (into a directory of its own
// inside the project, as dist/ is) starts and does what the sources do, with whatever it reads
// at run time found from where the bundle sits: mail templates, the account pages, the admin
// console, Swagger UI's assets, the password dictionary; and the CLI commands run from it.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import module from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { TEST_SECRET_KEY } from './helpers/app.js'
import type { RunningProcess } from './helpers/process.js'
import { emptyDirectory, runBuilt, startBuiltServer, stopServers } from './helpers/process.js'
import { waitFor } from './helpers/wait.js'

const root = path.resolve(import.meta.dirname, '..')
const out = path.join(root, `.build-test-${process.pid}`)
/** Node 22.1 and later keep a module compile cache when asked (src/compile-cache.ts). */
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'

let cwd: string
let scratch: string
const servers: RunningProcess[] = []

beforeAll(() => {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), out], { cwd: root, stdio: 'pipe' })
}, 300_000)
beforeAll(async () => {
  cwd = await emptyDirectory()
  scratch = await mkdtemp(path.join(tmpdir(), 'ups-build-'))
})
afterAll(async () => {
  await stopServers(...servers)
  await rm(out, { recursive: true, force: true })
  await rm(scratch, { recursive: true, force: true })
})

const baseEnv = (dataDir: string, extra: Record<string, string> = {}) => ({ DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, ...extra })

async function start(env: Record<string, string>) {
  const server = await startBuiltServer(path.join(out, 'server.js'), env, cwd)
  servers.push(server)
  return server
}

/** The plain-text copies of the mail written to DATA_DIR/mail, once there is one. */
async function waitForMail(dataDir: string): Promise<string[]> {
  const directory = path.join(dataDir, 'mail')
  const written = () => (existsSync(directory) ? readdirSync(directory).filter((name) => name.endsWith('.txt')) : [])
  await waitFor(() => written().length > 0)
  return written().map((name) => readFileSync(path.join(directory, name), 'utf8'))
}

describe('the built server', () => {
  it('is a few files: the dependencies are inside it, native addons outside', () => {
    const server = readFileSync(path.join(out, 'server.js'), 'utf8')
    expect(server).not.toMatch(/from ["']fastify["']|from ["']kysely["']/)
    expect(readdirSync(path.join(out, 'cli')).filter((name) => name.endsWith('.js')).sort()).toEqual(['backup.js', 'create-superuser.js', 'migrate.js', 'rebuild-search-index.js', 'restore.js', 'rotate-signing-key.js'])
  })

  it('starts on a fresh data directory and serves the API, its docs, the console, the account pages and mail', async () => {
    const dataDir = path.join(scratch, 'fresh')
    const server = await start(baseEnv(dataDir))
    expect((await fetch(`${server.url}/ready`)).status).toBe(200)

    // Sign-up: a common password is refused from the dictionary; then a reset link is mailed from the templates.
    const signup = (password: string) =>
      fetch(`${server.url}/api/v2/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Builder', username: 'built', email: 'built@example.com', password, accept_terms: true }),
      })
    const common = await signup('password123')
    expect(common.status).toBe(422)
    expect(((await common.json()) as { detail: string }).detail).toBe('Password is too common')
    expect((await signup('a built service passphrase')).status).toBe(201)
    const reset = await fetch(`${server.url}/api/v2/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'built@example.com' }) })
    expect(reset.status).toBe(202)
    const [mail] = await waitForMail(dataDir)
    expect(mail).toMatch(/To: built@example\.com\nSubject: Reset your password/)

    for (const version of ['v1', 'v2']) {
      const prefix = version === 'v1' ? '/services/v1' : '/api/v2'
      const document = await (await fetch(`${server.url}${prefix}/openapi.json`)).json()
      expect(document).toEqual(JSON.parse(readFileSync(path.join(root, 'docs/openapi', `${version}.json`), 'utf8')))
    }
    for (const [url, type] of [
      ['/api/v2/docs/static/index.html', 'text/html'],
      ['/api/v2/docs/static/swagger-ui-bundle.js', 'javascript'],
      ['/services/v1/docs/static/logo.svg', 'image/svg+xml'],
      ['/admin/', 'text/html'],
      ['/account/security', 'text/html'],
    ] as const) {
      const response = await fetch(`${server.url}${url}`)
      expect(response.status, url).toBe(200)
      expect(response.headers.get('content-type'), url).toContain(type)
    }
  })

  // The cache lives in the system's temporary directory (TMPDIR), in a directory of the service's own.
  const cacheDirectory = (temporary: string) => path.join(temporary, `user-post-service-compile-cache-${process.getuid?.() ?? 'user'}`)

  it('starts and answers when the compile cache directory cannot be made', async () => {
    // A temporary directory under a regular file: no user, root included, can make anything there.
    const blocker = path.join(scratch, 'not-a-directory')
    await writeFile(blocker, '')
    const server = await start(baseEnv(path.join(scratch, 'no-cache'), { TMPDIR: path.join(blocker, 'tmp') }))
    expect((await fetch(`${server.url}/ready`)).status).toBe(200)
    expect(server.stderr()).toBe('')
  })

  it('leaves a cache directory that others can write to alone', async () => {
    const temporary = path.join(scratch, 'shared-tmp')
    await mkdir(cacheDirectory(temporary), { recursive: true })
    await chmod(cacheDirectory(temporary), 0o777)
    const server = await start(baseEnv(path.join(scratch, 'shared-cache'), { TMPDIR: temporary }))
    expect((await fetch(`${server.url}/ready`)).status).toBe(200)
    await stopServers(server)
    expect(readdirSync(cacheDirectory(temporary))).toEqual([])
  })

  // Handing the directory to another user takes root (CI's machines run the suite as root).
  it.runIf(process.getuid?.() === 0)('leaves a cache directory that another user owns alone', async () => {
    const temporary = path.join(scratch, 'foreign-tmp')
    await mkdir(cacheDirectory(temporary), { recursive: true, mode: 0o700 })
    await chown(cacheDirectory(temporary), 65534, 65534)
    const server = await start(baseEnv(path.join(scratch, 'foreign-cache'), { TMPDIR: temporary }))
    expect((await fetch(`${server.url}/ready`)).status).toBe(200)
    await stopServers(server)
    expect(readdirSync(cacheDirectory(temporary))).toEqual([])
  })

  it.runIf(hasCompileCache)('keeps a private compile cache, written once the server listens', async () => {
    const temporary = path.join(scratch, 'private-tmp')
    await mkdir(temporary)
    const server = await start(baseEnv(path.join(scratch, 'with-cache'), { TMPDIR: temporary }))
    expect((await fetch(`${server.url}/ready`)).status).toBe(200)
    // Before the server exits: the cache was written as it started listening.
    expect(readdirSync(cacheDirectory(temporary), { recursive: true }).length).toBeGreaterThan(0)
    expect(statSync(cacheDirectory(temporary)).mode & 0o777).toBe(0o700)
  })
})

describe('the built CLI commands', () => {
  const run = async (name: string, args: string[], env: Record<string, string>) => {
    const child = runBuilt(path.join(out, 'cli', `${name}.js`), args, { LOG_LEVEL: 'silent', ...env }, cwd)
    const { code } = await child.exited
    return { code, stdout: child.stdout(), stderr: child.stderr() }
  }

  it('migrate, create-superuser and backup run from the bundle', async () => {
    const env = baseEnv(path.join(scratch, 'cli'))
    const migrated = await run('migrate', [], env)
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(migrated.stdout).toMatch(/applied: 2026-11-21-01-users-and-tiers/)
    const created = await run('create-superuser', ['--email', 'root@example.com', '--username', 'root', '--password', 'a long superuser passphrase'], env)
    expect(created.code, created.stderr).toBe(0)
    const common = await run('create-superuser', ['--email', 'other@example.com', '--username', 'other', '--password', 'password123'], env)
    expect(common.code).not.toBe(0)
    expect(common.stderr).toMatch(/too common/)
    const backup = path.join(scratch, 'backup.db')
    const backedUp = await run('backup', [backup], env)
    expect(backedUp.code, backedUp.stderr).toBe(0)
    expect(existsSync(backup)).toBe(true)
  })
})
