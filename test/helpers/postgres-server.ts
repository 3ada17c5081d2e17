// A PostgreSQL server of the test's own: initdb'd into a temporary directory and listening on a
// free port, so a test can stop it for real (and start it again) without touching the shared
// server every other test uses. Built from the machine's PostgreSQL binaries.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { freePort } from './process.js'

const run = promisify(execFile)
const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql'

/** The newest installed PostgreSQL's bin directory (Debian layout), if there is one. */
export function postgresBinDir(): string | undefined {
  if (!existsSync(DEBIAN_POSTGRES_ROOT)) return undefined
  const versions = readdirSync(DEBIAN_POSTGRES_ROOT).sort((a, b) => Number(b) - Number(a))
  return versions.map((version) => path.join(DEBIAN_POSTGRES_ROOT, version, 'bin')).find((dir) => existsSync(path.join(dir, 'pg_ctl')))
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  start(): Promise<void>
  /** Stops the server the way a crash would (`-m immediate`): no goodbye to the clients. */
  stop(): Promise<void>
  destroy(): Promise<void>
}

export async function startPostgresServer(binDir: string): Promise<PostgresServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ups-pg-'))
  const dataDir = path.join(dir, 'data')
  // PostgreSQL refuses to run as root; as root, run it as the postgres account.
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    await chown(dir, Number(stdout.trim()), -1)
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(binDir, tool), ...args]) : run(path.join(binDir, tool), args)

  const port = await freePort()
  await pg('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const server: PostgresServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await pg('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'])
    },
    stop: async () => {
      await pg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop'])
    },
    destroy: async () => {
      await server.stop().catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
  await server.start()
  return server
}
