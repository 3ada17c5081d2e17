// `npm run create-superuser -- --email a@b.c --username admin [--name "Ada"] [--password ...] [--promote-existing]`
// Creates the superuser. An existing account with that email or username is promoted only with
// --promote-existing (or ADMIN_PROMOTE_EXISTING=true): whoever registered the name first must
// not become a superuser by accident.
// Missing values fall back to ADMIN_* settings; on a terminal, whatever is still missing is asked
// for (the password without echo). Without a terminal, a missing value is a usage error.
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'

import { databaseOptions, migrate } from '../backends.js'
import { loadConfigFromEnvironment } from '../config.js'
import { createDatabase } from '../db/database.js'
import { createLogger } from '../logger.js'
import { createServices } from '../services.js'

/** Asks on the terminal (none: undefined); `hidden` writes nothing back while the answer is typed. */
async function ask(question: string, options: { hidden?: boolean } = {}): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined
  const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: true })
  const write = process.stdout.write.bind(process.stdout)
  let muted = false
  if (options.hidden) {
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
      muted ? true : write(chunk, ...rest)) as typeof process.stdout.write
  }
  const pending = terminal.question(question)
  muted = options.hidden === true
  try {
    const answer = (await pending).trim()
    return answer === '' ? undefined : answer
  } finally {
    muted = false
    process.stdout.write = write
    if (options.hidden) process.stdout.write('\n')
    terminal.close()
  }
}

const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    username: { type: 'string' },
    name: { type: 'string' },
    password: { type: 'string' },
    'promote-existing': { type: 'boolean' },
  },
})
const config = loadConfigFromEnvironment()
const email = values.email ?? config.admin?.email ?? (await ask('Email: '))
const username = values.username ?? config.admin?.username ?? (await ask('Username: '))
const name = values.name ?? config.admin?.name ?? (values.email || values.username ? undefined : await ask('Name (Administrator): '))
const password = values.password ?? config.admin?.password ?? (await ask('Password: ', { hidden: true }))
if (!email || !username || !password) {
  console.error('usage: npm run create-superuser -- --email <email> --username <username> [--name <name>] [--password <password>]')
  console.error('(or set ADMIN_EMAIL, ADMIN_USERNAME and ADMIN_PASSWORD, or run it on a terminal to be asked)')
  process.exit(2)
}
const account = { name: name ?? 'Administrator', email, username, password }
const database = await createDatabase(databaseOptions(config))
try {
  await migrate(config, database)
  // This command issues no tokens, so any key will do for the token service it never uses.
  const services = createServices({ config, secretKey: randomBytes(32).toString('hex'), database, redis: undefined, logger: createLogger('silent') })
  const problem = services.users.accountProblem(account, { name: '--name', email: '--email', username: '--username', password: '--password' })
  if (problem) {
    console.error(`invalid account: ${problem}`)
    process.exitCode = 2
  } else {
    const promoteExisting = values['promote-existing'] ?? config.adminPromoteExisting
    const { user, outcome } = await services.users.ensureSuperuser(account, { promoteExisting })
    const done = { created: 'created', present: 'found existing', promoted: 'promoted existing' }[outcome]
    console.log(`${done} superuser #${user.id} (${user.username}) in ${database.location}`)
  }
} catch (error) {
  console.error(`failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await database.close()
}
