// Several server processes on one new test database (and one data directory), as a deployment
// runs them: for the tests of what processes share. Each starts with a superuser (ADMIN_*).
import { createTestDatabase, TEST_SECRET_KEY } from './app.js'
import type { RunningProcess } from './process.js'
import { emptyDirectory, startServer, stopServers } from './process.js'

export type Server = RunningProcess & { url: string }

export const ADMIN = { ADMIN_EMAIL: 'root@example.com', ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'a long admin password 42' }

export interface ServersOnOneDatabase {
  /** The settings every server starts with (DATA_DIR, the database's, the superuser's and the test's own). */
  env: Record<string, string>
  /** Starts one more server; `settings` add to (or override) the shared ones for it alone. */
  start(settings?: Record<string, string>): Promise<Server>
  /** Stops every server still running (SIGTERM) and drops the database. */
  close(): Promise<void>
}

export async function serversOnOneDatabase(settings: Record<string, string> = {}): Promise<ServersOnOneDatabase> {
  const database = await createTestDatabase()
  const env = { ...database.env, ...ADMIN, SECRET_KEY: TEST_SECRET_KEY, ...settings }
  const cwd = await emptyDirectory()
  const servers: Server[] = []
  return {
    env,
    async start(settings = {}) {
      const server = await startServer({ ...env, ...settings }, cwd)
      servers.push(server)
      return server
    },
    async close() {
      await stopServers(...servers)
      await database.drop()
    },
  }
}

/** The superuser's access token, from a v1 login at the server. */
export async function adminToken(server: Server): Promise<string> {
  const response = await fetch(`${server.url}/services/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.ADMIN_USERNAME, password: ADMIN.ADMIN_PASSWORD }),
  })
  if (response.status !== 200) throw new Error(`the superuser's login answered ${response.status}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** Signs someone new up at the server (v2); their access token, from a fresh session. */
export async function signUpAt(server: Server, username: string): Promise<string> {
  const response = await fetch(`${server.url}/api/v2/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: username, username, email: `${username}@example.com`, password: `a long password of ${username}`, accept_terms: true }),
  })
  if (response.status !== 201) throw new Error(`signing ${username} up answered ${response.status}`)
  return ((await response.json()) as { tokens: { access_token: string } }).tokens.access_token
}
