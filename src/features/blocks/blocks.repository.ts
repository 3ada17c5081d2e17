// The blocks slice's SQL. The lists that leave out whom a reader blocked (posts, comments) carry
// the condition in their own repositories' statements, reading user_blocks as a post's insert reads
// users.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

/** Whether the block is new (false: it was there already). */
export async function insertBlock(db: Executor, blockerId: number, blockedId: number): Promise<boolean> {
  const row = await db.insertInto('user_blocks').values({ blocker_id: blockerId, blocked_id: blockedId, created_at: nowIso() }).onConflict((oc) => oc.doNothing()).returning('blocked_id').executeTakeFirst()
  return row !== undefined
}

export async function deleteBlock(db: Executor, blockerId: number, blockedId: number): Promise<boolean> {
  const row = await db.deleteFrom('user_blocks').where('blocker_id', '=', blockerId).where('blocked_id', '=', blockedId).returning('blocked_id').executeTakeFirst()
  return row !== undefined
}

export function findBlock(db: Executor, blockerId: number, blockedId: number) {
  return db.selectFrom('user_blocks').select(['blocked_id', 'created_at']).where('blocker_id', '=', blockerId).where('blocked_id', '=', blockedId).executeTakeFirst()
}

/** A page of the user's blocks by the blocked user's id, after `after`. */
export function blocksPage(db: Executor, blockerId: number, { offset, limit, after }: { offset: number; limit: number; after?: number }) {
  return db
    .selectFrom('user_blocks')
    .select(['blocked_id', 'created_at'])
    .where('blocker_id', '=', blockerId)
    .$if(after !== undefined, (qb) => qb.where('blocked_id', '>', after ?? 0))
    .orderBy('blocked_id')
    .limit(limit)
    .offset(offset)
    .execute()
}

export async function countBlocks(db: Executor, blockerId: number): Promise<number> {
  const row = await db.selectFrom('user_blocks').select((eb) => eb.fn.countAll<number | string>().as('count')).where('blocker_id', '=', blockerId).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Which of `blockerIds` blocked `userId`. */
export async function blockersAmong(db: Executor, blockerIds: readonly number[], userId: number): Promise<number[]> {
  if (blockerIds.length === 0) return []
  const rows = await db.selectFrom('user_blocks').select('blocker_id').where('blocked_id', '=', userId).where('blocker_id', 'in', [...blockerIds]).execute()
  return rows.map((row) => Number(row.blocker_id))
}

/** Everyone each of these users blocked. */
export function blockedByEach(db: Executor, blockerIds: readonly number[]) {
  return db.selectFrom('user_blocks').select(['blocker_id', 'blocked_id']).where('blocker_id', 'in', [...blockerIds]).execute()
}

/** This slice's data access for its service (src/db/repository.ts). */
export const blocksFunctions = { insertBlock, deleteBlock, findBlock, blocksPage, countBlocks, blockersAmong, blockedByEach }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const blocksReadTargets: ReadTargets<typeof blocksFunctions> = {
  insertBlock: 'write',
  deleteBlock: 'write',
  findBlock: 'primary',
  blocksPage: 'primary',
  countBlocks: 'primary',
  blockersAmong: 'primary',
  blockedByEach: 'primary',
}

export type BlocksRepository = Repository<typeof blocksFunctions>
