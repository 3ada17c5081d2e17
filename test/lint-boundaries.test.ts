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
    ['a service that imports kysely', 'src/modules/posts/posts.service.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ['a service that takes an executor', 'src/modules/posts/posts.service.ts', "import type { Executor } from '../../db/schema.js'\nexport type Db = Executor\n"],
    ['a route that imports kysely', 'src/api/common/posts.routes.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ["another module's repository by a deep path", 'src/modules/posts/posts.service.ts', "import { usersFunctions } from '../../modules/users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ["another module's table", 'src/modules/account/account.service.ts', "import { USER_TABLE_COLUMNS } from '../users/users.table.js'\nexport const columns = USER_TABLE_COLUMNS\n"],
    ['a route that reaches a repository', 'src/api/v2/users.routes.ts', "import { usersFunctions } from '../../modules/users/users.repository.js'\nexport const functions = usersFunctions\n"],
    ['v2 importing v1', 'src/api/v2/mappers.ts', "import { toUserReadV1 } from '../v1/mappers.js'\nexport const map = toUserReadV1\n"],
    ['const { env } = process', 'src/modules/mail/transports.ts', 'const { env } = process\nexport const home = env.HOME\n'],
    ['process.env', 'src/server.ts', 'export const home = process.env.HOME\n'],
    ['Fastify in a module', 'src/modules/posts/posts.service.ts', "import type { FastifyRequest } from 'fastify'\nexport type Request = FastifyRequest\n"],
    ['a module subscribing to domain events itself', 'src/modules/posts/posts.service.ts', "import type { DomainEvents } from '../domain-events.js'\nexport const listen = (domainEvents: DomainEvents) => domainEvents.subscribe('user.email_changed', async () => {})\n"],
    ['imports out of order', 'src/modules/posts/post.ts', "import { Type } from 'typebox'\nimport { readFile } from 'node:fs/promises'\nexport const both = [Type, readFile]\n"],
  ])('%s', async (_label, file, code) => {
    expect(await problems(file, code)).not.toEqual([])
  })
})

describe('the lint lets through', () => {
  it.each([
    ["a service's own repository", 'src/modules/posts/posts.service.ts', "import type { PostsRepository } from './posts.repository.js'\nexport type Posts = PostsRepository\n"],
    ['a repository that builds SQL', 'src/modules/posts/posts.repository.ts', "import { sql } from 'kysely'\nexport const query = sql`select 1`\n"],
    ['the settings reader', 'src/config.ts', 'export const home = process.env.HOME\n'],
  ])('%s', async (_label, file, code) => {
    expect(await problems(file, code)).toEqual([])
  })
})
