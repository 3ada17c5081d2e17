// Live (not soft-deleted) rows counted the slow, certain way, to check the totals the API reports.
import { sql } from 'kysely'

import type { Executor } from '../../src/db/schema.js'

export async function countLiveRows(db: Executor): Promise<{ users: number; posts: number }> {
  const users = await sql<{ n: number | string }>`select count(*) as n from users where is_deleted = ${0}`.execute(db)
  const posts = await sql<{ n: number | string }>`select count(*) as n from posts where is_deleted = ${0}`.execute(db)
  return { users: Number(users.rows[0]?.n), posts: Number(posts.rows[0]?.n) }
}
