// The layer boundaries are the lint's to enforce (eslint.config.js): each case below is code that
// must be refused where it stands, and its twin that must pass.
import path from 'node:path'

import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '..')
const eslint = new ESLint({ cwd: root })

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) })
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'fatal'}: ${message.message}`)
}

describe('the lint refuses', () => {
  it.each([
    ['a service that imports kysely', 'src/features/posts/posts.service.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ['a service that takes an executor', 'src/features/posts/posts.service.ts', "import type { Executor } from '../../db/schema.js'\nexport type Db = Executor\n"],
    ['a route that imports kysely', 'src/features/posts/posts.routes.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ["another feature's repository by a deep path", 'src/features/posts/posts.service.ts', "import { usersFunctions } from '../../features/users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ["another feature's table", 'src/features/account/account.service.ts', "import { USER_TABLE_COLUMNS } from '../users/users.table.js'\nexport const columns = USER_TABLE_COLUMNS\n"],
    ['a route that reaches a repository', 'src/features/users/users.v2.routes.ts', "import { usersFunctions } from './users.repository.js'\nexport const functions = usersFunctions\n"],
    ['v2 importing v1', 'src/features/users/users.v2.mappers.ts', "import { toUserReadV1 } from './users.v1.mappers.js'\nexport const map = toUserReadV1\n"],
    ["a service reaching past another feature's index.ts", 'src/features/posts/posts.service.ts', "import { UserService } from '../users/users.service.js'\nexport const Users = UserService\n"],
    ["a route reaching past another feature's index.ts", 'src/features/posts/posts.routes.ts', "import { toUserReadV2 } from '../users/users.v2.mappers.js'\nexport const map = toUserReadV2\n"],
    ["a test reaching past another feature's index.ts", 'src/features/posts/posts.v2.test.ts', "import { usersFunctions } from '../users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ["a plugin reaching into a feature's files", 'src/plugins/authentication.ts', "import { AuthService } from '../features/auth/auth.service.js'\nexport const Auth = AuthService\n"],
    ["a plugin naming a slice at all", 'src/plugins/authentication.ts', "import type { AuthService } from '../features/auth/index.js'\nexport type Auth = AuthService\n"],
    ["the app naming a slice", 'src/app.ts', "import { DOORS } from './features/abuse/index.js'\nexport const doors = DOORS\n"],
    ["a command naming a slice", 'src/cli/create-superuser.ts', "import { adminAccountProblem } from '../features/users/index.js'\nexport const problem = adminAccountProblem\n"],
    ['the composition naming a service past its index.ts', 'src/services.ts', "import { UserService } from './features/users/users.service.js'\nexport const Users = UserService\n"],
    ["the composition binding a slice's repository", 'src/services.ts', "import { usersFunctions } from './features/users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ["the database's type naming a slice's table", 'src/db/schema.ts', "import type { UsersTable } from '../features/users/users.table.js'\nexport type Users = UsersTable\n"],
    ["a manifest binding another slice's repository", 'src/features/posts/feature.ts', "import { usersFunctions } from '../users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ["a manifest naming a table", 'src/features/posts/feature.ts', "import type { PostsTable } from './posts.table.js'\nexport type Posts = PostsTable\n"],
    ['a manifest importing kysely', 'src/features/posts/feature.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ["the settings naming a slice's settings.ts", 'src/config.ts', "import { webhookSettings } from './features/webhooks/settings.js'\nexport const read = webhookSettings\n"],
    ["the settings reaching past a slice's settings.ts", 'src/config.ts', "import { WebhookService } from './features/webhooks/webhooks.service.js'\nexport const Webhooks = WebhookService\n"],
    ["a feature's index.ts offering its data access", 'src/features/posts/index.ts', "export { postsFunctions } from './posts.repository.js'\n"],
    ['a service importing routes', 'src/features/posts/posts.service.ts', "import postsRoutes from './posts.routes.js'\nexport const routes = postsRoutes\n"],
    ['const { env } = process', 'src/features/mail/transports.ts', 'const { env } = process\nexport const home = env.HOME\n'],
    ['process.env', 'src/server.ts', 'export const home = process.env.HOME\n'],
    ['Fastify in a module', 'src/features/posts/posts.service.ts', "import type { FastifyRequest } from 'fastify'\nexport type Request = FastifyRequest\n"],
    ['a service subscribing to domain events itself', 'src/features/posts/posts.service.ts', "import type { DomainEvents } from '../users/index.js'\nexport const listen = (domainEvents: DomainEvents) => domainEvents.subscribe('user.email_changed', async () => {})\n"],
    ['imports out of order', 'src/features/posts/post.ts', "import { Type } from 'typebox'\nimport { readFile } from 'node:fs/promises'\nexport const both = [Type, readFile]\n"],
  ])('%s', async (_label, file, code) => {
    expect(await problems(file, code)).not.toEqual([])
  })
})

describe('the lint lets through', () => {
  it.each([
    ["a service's own repository", 'src/features/posts/posts.service.ts', "import type { PostsRepository } from './posts.repository.js'\nexport type Posts = PostsRepository\n"],
    ['a repository that builds SQL', 'src/features/posts/posts.repository.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ['the settings reader', 'src/config.ts', 'export const home = process.env.HOME\n'],
    ["a service using another feature through its index.ts", 'src/features/posts/posts.service.ts', "import type { UserService } from '../users/index.js'\nexport type Users = UserService\n"],
    ["a feature's subscription in its feature.ts", 'src/features/posts/feature.ts', "import type { DomainEvents } from '../users/index.js'\nexport const listen = (domainEvents: DomainEvents) => domainEvents.subscribe('user.email_changed', async () => {})\n"],
    ["a manifest binding its own repository", 'src/features/posts/feature.ts', "import { postsFunctions } from './posts.repository.js'\nexport const functions = postsFunctions\n"],
    ["a plugin reading the slice list", 'src/plugins/app-context.ts', "import type { Services } from '../features/index.js'\nexport type All = Services\n"],
  ])('%s', async (_label, file, code) => {
    expect(await problems(file, code)).toEqual([])
  })
})
