// The statements the service sends for one reader's first page of posts (v2), as its own
// repositories build them: captured by running those functions on a database whose every query
// is recorded with its parameters. The list benchmark's same-work reference
// (bench/bare/list-reference.mjs) replays them, and their plans are explained from them. What is
// captured follows the service's list (PostService.list, then withAttachments): the reader's
// organizations, then the page with its total (the total apart only for an empty page), then the
// files of the page's posts that have any.
import path from 'node:path'

import type { CompiledQuery } from 'kysely'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'

import { registerDirectExecutor } from '../../src/db/fast-path/direct-executor.js'
import { postgresTypes } from '../../src/db/fast-path/pg-timestamps.js'
import { QueuedSqliteDialect } from '../../src/db/fast-path/sqlite-dialect.js'
import type { Database } from '../../src/db/schema.js'
import SqliteDatabase from '../../src/db/sqlite-driver.js'
import { filesOfPosts } from '../../src/features/files/files.repository.js'
import { listRolesOf } from '../../src/features/orgs/orgs.repository.js'
import type { MemberRole, Reader } from '../../src/features/posts/post-policy.js'
import { ANONYMOUS } from '../../src/features/posts/post-policy.js'
import { countPosts, listPostsWithTotal } from '../../src/features/posts/posts.repository.js'
import type { SeedTarget } from './seed.js'

export interface Statement {
  sql: string
  parameters: unknown[]
}

/** One reader's first page, phase by phase. */
export interface ListStatements {
  roles: Statement[]
  page: Statement[]
  count: Statement[]
  files: Statement[]
}

/** A database whose queries (Kysely's and the prepared ones) are told to `record` as they run. */
async function recordingDatabase(target: SeedTarget, record: (statement: Statement) => void): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  const log = (event: { query: CompiledQuery }) => record({ sql: event.query.sql, parameters: [...event.query.parameters] })
  if (target.dialect === 'sqlite') {
    const sqlite = new SqliteDatabase(path.join(target.dataDir, 'app.db'))
    const dialect = new QueuedSqliteDialect(sqlite)
    const db = new Kysely<Database>({ dialect, log })
    registerDirectExecutor(db, {
      runNow<R>(sql: string, parameters: readonly unknown[], singleRow?: boolean) {
        record({ sql, parameters: [...parameters] })
        return dialect.driver.runNow<R>(sql, parameters, singleRow)
      },
    })
    return { db, close: () => db.destroy() }
  }
  const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 2, types: postgresTypes })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log })
  registerDirectExecutor(db, {
    async runNow<R>(sql: string, parameters: readonly unknown[]) {
      record({ sql, parameters: [...parameters] })
      return (await pool.query(sql, parameters as unknown[])).rows as R[]
    },
  })
  return { db, close: () => db.destroy() }
}

/** The statements of the first page (`limit` items) for the anonymous reader (userId undefined) or a user. */
export async function listStatementsOf(target: SeedTarget, userId: number | undefined, limit: number): Promise<ListStatements> {
  let phase: Statement[] = []
  const statements: ListStatements = { roles: [], page: [], count: [], files: [] }
  const database = await recordingDatabase(target, (statement) => phase.push(statement))
  try {
    const { db } = database
    let reader: Reader = ANONYMOUS
    if (userId !== undefined) {
      phase = statements.roles
      const roles = await listRolesOf(db, userId)
      reader = { userId, isSuperuser: false, mayWrite: true, orgRoles: new Map(roles.map((row) => [Number(row.org_id), row.role as MemberRole])) }
    }
    phase = statements.page
    // The service reads one row more than the page, to know whether another follows (next_cursor).
    const { rows, total } = await listPostsWithTotal(db, reader, {}, { offset: 0, limit: limit + 1 })
    phase = statements.count
    if (total === undefined) await countPosts(db, reader, {})
    phase = statements.files
    const withFiles = rows.slice(0, limit).filter((row) => Number(row.attachment_count) > 0)
    if (withFiles.length > 0) {
      await filesOfPosts(
        db,
        withFiles.map((row) => row.id),
      )
    }
    return statements
  } finally {
    await database.close()
  }
}
