/// <reference types="vite/client" />
// Prepared queries take a direct path on SQLite when no transaction holds the connection; while
// one does, they must wait for it instead of reading its uncommitted changes. Every prepared
// variant returns exactly what its plain Kysely twin returns, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { PreparedQuery } from '../../src/db/fast-path/prepared.js'
import { idListValue } from '../../src/db/id-list.js'
import { preparedLiveRowTotal } from '../../src/db/row-counts.js'
import { preparedRevokedToken } from '../../src/features/auth/auth.repository.js'
import { preparedFilesOfPosts } from '../../src/features/files/files.repository.js'
import {
  preparedFirstPosts,
  preparedFirstPostsWithTotal,
  preparedInsertLivePost,
  preparedNewestPosts,
  preparedNewestPostsBefore,
  preparedNewestPostsBeforeWithTotal,
  preparedNewestPostsBy,
  preparedNewestPostsWithTotal,
  preparedPostById,
  preparedReaderPage,
  preparedReaderPageBefore,
  preparedReaderPageBeforeWithTotal,
  preparedReaderPageWithTotal,
  preparedReaderTotal,
} from '../../src/features/posts/posts.repository.js'
import {
  findUserById,
  matchArgument,
  preparedCaller,
  preparedSearchByName,
  preparedUserById,
  preparedUserInLiveSession,
  preparedUserPage,
  preparedUserPageAfter,
} from '../../src/features/users/users.repository.js'
import { likeContains } from '../../src/shared/like-pattern.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp, dialect } from '../helpers/app.js'
import { sessionOf } from '../helpers/tokens.js'
import { login, seedUser } from '../helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('prepared queries', () => {
  it('return the same rows as the query they were compiled from, for every argument', async () => {
    const users = await Promise.all([seedUser(t.app), seedUser(t.app), seedUser(t.app)])
    for (const user of users) expect((await findUserById(t.db, user.id))?.username).toBe(user.username)
    expect(await findUserById(t.db, 999_999)).toBeUndefined()
  })

  it('never see a transaction that is still open', async () => {
    const user = await seedUser(t.app, { name: 'Before Commit' })
    let committed = false
    let releaseTransaction!: () => void
    const held = new Promise<void>((resolve) => (releaseTransaction = resolve))
    let updated!: () => void
    const updateDone = new Promise<void>((resolve) => (updated = resolve))

    const transaction = t.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'After Commit' }).where('id', '=', user.id).execute()
      updated()
      await held
    })
    await updateDone
    const read = findUserById(t.db, user.id).then((found) => ({ name: found?.name, committed }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    committed = true
    releaseTransaction()
    await transaction

    const { name, committed: readAfterCommit } = await read
    // PostgreSQL reads the committed state at once; SQLite's single connection waits for the commit.
    if (name === 'After Commit') expect(readAfterCommit).toBe(true)
    else expect(name).toBe('Before Commit')
  })
})

describe('each prepared variant and its plain twin', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type AnyPrepared = PreparedQuery<any[], unknown>
  interface Case {
    name: string
    prepared: AnyPrepared
    args: () => unknown[]
    /** Writes return new rows each time: compare them without their generated id. */
    write?: boolean
  }

  let ids: { author: number; firstUser: number; deletedUser: number; post: number; session: string; revokedJti: string }
  beforeAll(async () => {
    const author = await seedUser(t.app, { name: 'Percent 100% Ada' })
    const deleted = await seedUser(t.app, { name: 'Gone Person' })
    await t.app.services.users.softDelete({ id: deleted.id, isSuperuser: true }, deleted.id)
    const post = await t.app.services.posts.create(author, { title: 'Prepared', text: 'twin' })
    await t.app.services.posts.create(author, { title: 'Second', text: 'post' })
    const session = sessionOf((await login(t.app, author.username, author.password)).accessToken)
    const revokedJti = 'revoked-jti'
    await t.db.insertInto('revoked_tokens').values({ jti: revokedJti, expires_at: new Date(Date.now() + 60_000).toISOString() }).execute()
    ids = { author: author.id, firstUser: author.id, deletedUser: deleted.id, post: post.id, session, revokedJti }
  })

  const cases: Case[] = [
    { name: 'user by id', prepared: preparedUserById, args: () => [ids.firstUser] },
    { name: 'user by id (soft-deleted)', prepared: preparedUserById, args: () => [ids.deletedUser] },
    { name: 'user in a live session', prepared: preparedUserInLiveSession, args: () => [ids.author, ids.session] },
    { name: 'user in an unknown session', prepared: preparedUserInLiveSession, args: () => [ids.author, 'no-such-session'] },
    { name: 'caller with a live token', prepared: preparedCaller, args: () => [ids.author, ids.session, 'no-such-jti'] },
    { name: 'caller with a revoked token', prepared: preparedCaller, args: () => [ids.author, ids.session, ids.revokedJti] },
    { name: 'user page', prepared: preparedUserPage, args: () => [0, 3] },
    { name: 'user page, deep', prepared: preparedUserPage, args: () => [2, 2] },
    { name: 'user page after a key', prepared: preparedUserPageAfter, args: () => [ids.author, 2] },
    { name: 'search by name (like)', prepared: preparedSearchByName.like, args: () => [1, likeContains('pe'), 0, 100] },
    { name: 'search by name (index)', prepared: preparedSearchByName.index, args: () => [1, likeContains('percent'), 0, 100], sqliteOnly: true },
    { name: 'search by name (index, a phrase)', prepared: preparedSearchByName['index-phrase'], args: () => [1, matchArgument('index-phrase', '100%'), 0, 100], sqliteOnly: true },
    { name: 'revoked token', prepared: preparedRevokedToken, args: () => ['no-such-jti'] },
    { name: 'post by id', prepared: preparedPostById, args: () => [ids.post] },
    { name: 'newest posts', prepared: preparedNewestPosts, args: () => [0, 10] },
    { name: 'newest posts before a key', prepared: preparedNewestPostsBefore, args: () => [ids.post + 1, 10] },
    { name: 'newest posts by author', prepared: preparedNewestPostsBy, args: () => [ids.author, 0, 10] },
    { name: 'first posts', prepared: preparedFirstPosts, args: () => [10] },
    { name: 'first posts with their total', prepared: preparedFirstPostsWithTotal, args: () => [10] },
    { name: 'newest posts with their total', prepared: preparedNewestPostsWithTotal, args: () => [1, 10] },
    { name: 'newest posts before a key with their total', prepared: preparedNewestPostsBeforeWithTotal, args: () => [ids.post + 1, 10] },
    { name: "a signed-in reader's page with its total", prepared: preparedReaderPageWithTotal, args: () => [ids.author, idListValue(t.db, [1]), idListValue(t.db, [1]), 0, 10] },
    { name: "a signed-in reader's page before a key with its total", prepared: preparedReaderPageBeforeWithTotal, args: () => [ids.author, idListValue(t.db, []), idListValue(t.db, []), ids.post + 1, 10] },
    { name: "a signed-in reader's page", prepared: preparedReaderPage, args: () => [ids.author, idListValue(t.db, []), idListValue(t.db, []), 0, 10] },
    { name: "a member's page", prepared: preparedReaderPage, args: () => [ids.firstUser, idListValue(t.db, [1, 2]), idListValue(t.db, [2]), 0, 10] },
    { name: "a signed-in reader's page before a key", prepared: preparedReaderPageBefore, args: () => [ids.author, idListValue(t.db, [1]), idListValue(t.db, []), ids.post + 1, 10] },
    { name: "a signed-in reader's total", prepared: preparedReaderTotal, args: () => [ids.author, idListValue(t.db, [1, 2]), idListValue(t.db, [1])] },
    { name: 'files of posts', prepared: preparedFilesOfPosts, args: () => [idListValue(t.db, [ids.post, ids.post + 1])] },
    { name: 'live row total', prepared: preparedLiveRowTotal, args: () => ['users'] },
    {
      name: 'insert a post for a live author',
      prepared: preparedInsertLivePost,
      args: () => [ids.author, 'title', 'text', null, 'public', 'published', null, 'open', '2026-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z', null, null, 'markdown', '<p>text</p>', '{"rating":4}', null, '["go"]'],
      write: true,
    },
    {
      name: 'insert a post for a deleted author',
      prepared: preparedInsertLivePost,
      args: () => [ids.deletedUser, 'title', 'text', null, 'private', 'draft', null, 'closed', null, '2026-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z', null, null, 'plain', null, '{}', 'en', '[]'],
      write: true,
    },
  ].filter((entry) => !('sqliteOnly' in entry) || dialect() === 'sqlite')

  const withoutIds = (rows: unknown[]) => rows.map((row) => ({ ...(row as object), id: undefined }))

  it.each(cases)('$name', async ({ prepared, args, write }) => {
    const fromPrepared = await prepared(t.db, ...args())
    const { rows: fromPlain } = await t.db.executeQuery(prepared.build(t.db, ...args()).compile())
    if (write) expect(withoutIds(fromPrepared)).toEqual(withoutIds(fromPlain))
    else expect(fromPrepared).toEqual(fromPlain)
  })

  it('find the caller in one statement only while the access token is not revoked', async () => {
    expect(await preparedCaller(t.db, ids.author, ids.session, 'no-such-jti')).toHaveLength(1)
    expect(await preparedCaller(t.db, ids.author, ids.session, ids.revokedJti)).toEqual([])
  })

  it('cover every prepared variant the modules export', () => {
    const covered = new Set(cases.map((entry) => entry.prepared))
    // Every prepared query exported by a repository or the database layer, found rather than listed: a new one needs a case above.
    const modules = import.meta.glob<Record<string, unknown>>(['../../src/features/*/*.repository.ts', '../../src/db/*.ts'], { eager: true })
    const isPrepared = (value: unknown): value is AnyPrepared => typeof value === 'function' && typeof (value as Partial<AnyPrepared>).build === 'function'
    const exported = Object.entries(modules).flatMap(([file, module]) =>
      Object.entries(module).flatMap(([name, value]) => {
        // The search variants are objects of prepared queries; the indexed ones are SQLite's alone.
        const values = isPrepared(value) ? [value] : value !== null && typeof value === 'object' ? Object.values(value).filter(isPrepared) : []
        const used = name === 'preparedSearchByName' && dialect() !== 'sqlite' ? values.filter((candidate) => candidate === preparedSearchByName.like) : values
        return used.map((prepared) => ({ name: `${file}: ${name}`, prepared }))
      }),
    )
    expect(exported.length).toBeGreaterThan(20)
    expect(exported.filter(({ prepared }) => !covered.has(prepared)).map(({ name }) => name)).toEqual([])
  })
})
