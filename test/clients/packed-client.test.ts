// The client as users install it: `npm pack` builds clients/typescript to JavaScript and
// declarations, a scratch project installs the tarball, and plain `node` (no tsx, no
// TypeScript) runs sign-up, login, me, posts, refresh and logout against a live server.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
const clientDir = path.join(root, 'clients', 'typescript')
/** PATH without this repository's node_modules/.bin, which `npm run` would have put there. */
const withoutRepositoryBins = (value = '') => value.split(path.delimiter).filter((entry) => !entry.startsWith(root)).join(path.delimiter)

let t: TestApp
let baseUrl: string
let scratch: string
beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
  scratch = await mkdtemp(path.join(tmpdir(), 'ups-client-'))
}, 300_000)
afterAll(async () => {
  await t.close()
  await rm(scratch, { recursive: true, force: true })
})

describe('the packed client', () => {
  it('builds and packs from its own folder alone, with its own devDependencies', async () => {
    // A copy of the package's folder outside the repository: no parent's node_modules to lean on.
    const alone = path.join(scratch, 'client-alone')
    await cp(clientDir, alone, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) && !source.endsWith('.tgz') })
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--silent'], { cwd: alone })
    const { stdout: packed } = await run('npm', ['pack', '--silent'], { cwd: alone, env: { ...process.env, PATH: withoutRepositoryBins(process.env.PATH) } })
    expect(packed.trim().split('\n').at(-1)).toMatch(/^user-post-service-client-[\d.]+\.tgz$/)
  }, 300_000)

  it('installs from its tarball and runs the whole flow under plain node', async () => {
    const { stdout: packed } = await run('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: clientDir })
    const tarball = path.join(scratch, packed.trim().split('\n').at(-1) ?? '')
    const manifest = JSON.parse(await readFile(path.join(clientDir, 'package.json'), 'utf8')) as { exports: Record<string, { import: string; types: string }> }
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' })

    const project = path.join(scratch, 'app')
    await run('mkdir', ['-p', project])
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }))
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--silent'], { cwd: project })
    const script = path.join(project, 'flow.mjs')
    await writeFile(script, await readFile(path.join(import.meta.dirname, 'fixtures', 'packed-client-flow.mjs')))

    const { stdout } = await run(process.execPath, [script], { cwd: project, env: { PATH: process.env.PATH ?? '', BASE_URL: baseUrl } })
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')
    expect(result).toMatchObject({
      loggedIn: true,
      titles: ['From plain node'],
      refreshedNewToken: true,
      meAfterRefresh: true,
      statusAfterLogout: 401,
      storedAfterLogout: null,
      loginError: { status: 401, code: 'invalid_credentials' },
    })
    expect(result.me).toBe(result.signedUp)
    // The README's "From a frontend" lines, as written, against this server (a fresh database: `ada` is free).
    const readme = await readFile(path.join(root, 'README.md'), 'utf8')
    const snippet = /### From a frontend[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    expect(snippet.trim().split('\n')).toHaveLength(5)
    const readmeScript = path.join(project, 'readme.mjs')
    await writeFile(readmeScript, `${snippet.replace("'http://localhost:8000'", JSON.stringify(baseUrl))}\nprocess.stdout.write(JSON.stringify(posts.map((post) => post.title)))\n`)
    const { stdout: readmeOut } = await run(process.execPath, [readmeScript], { cwd: project, env: { PATH: process.env.PATH ?? '' } })
    expect(JSON.parse(readmeOut)).toContain('Hello')

    // The declarations ship too: a TypeScript app gets every path and shape typed.
    const declarations = await readFile(path.join(project, 'node_modules', '@user-post-service', 'client', 'dist', 'index.d.ts'), 'utf8')
    expect(declarations).toContain('createClient')
  }, 300_000)
})
