// The reactions slice's SQL. Adding and taking back are one statement each; the counts move by
// trigger in the same transaction (migration 2026-12-09-02-reactions).
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { ReactionTarget } from './reaction.js'

/** Whether it was added (false: the user had it already). */
export async function addReaction(db: Executor, target: ReactionTarget, targetId: number, userId: number, kind: string): Promise<boolean> {
  const createdAt = nowIso()
  const inserted =
    target === 'post'
      ? await db.insertInto('post_reactions').values({ post_id: targetId, user_id: userId, kind, created_at: createdAt }).onConflict((oc) => oc.doNothing()).returning('kind').executeTakeFirst()
      : await db.insertInto('comment_reactions').values({ comment_id: targetId, user_id: userId, kind, created_at: createdAt }).onConflict((oc) => oc.doNothing()).returning('kind').executeTakeFirst()
  return inserted !== undefined
}

/** Whether it was there to take back. */
export async function removeReaction(db: Executor, target: ReactionTarget, targetId: number, userId: number, kind: string): Promise<boolean> {
  const deleted =
    target === 'post'
      ? await db.deleteFrom('post_reactions').where('post_id', '=', targetId).where('user_id', '=', userId).where('kind', '=', kind).returning('kind').executeTakeFirst()
      : await db.deleteFrom('comment_reactions').where('comment_id', '=', targetId).where('user_id', '=', userId).where('kind', '=', kind).returning('kind').executeTakeFirst()
  return deleted !== undefined
}

export interface SummaryRow {
  target_id: number
  kind: string
  count: number | string
  /** 1 for a row of the reader's own reactions (its count is 0), 0 for a count. */
  mine: number | string
}

/** The counts of these targets and the reader's own reactions on them, in one statement. */
export function summaryRows(db: Executor, target: ReactionTarget, ids: readonly number[], userId: number | null): Promise<SummaryRow[]> {
  const list = [...ids]
  if (target === 'post') {
    const counts = db.selectFrom('post_reaction_counts').select((eb) => [eb.ref('post_id').as('target_id'), 'kind', 'count', sql<number>`0`.as('mine')]).where('post_id', 'in', list).where('count', '>', 0)
    if (userId === null) return counts.execute()
    return counts.unionAll(db.selectFrom('post_reactions').select((eb) => [eb.ref('post_id').as('target_id'), 'kind', sql<number>`0`.as('count'), sql<number>`1`.as('mine')]).where('user_id', '=', userId).where('post_id', 'in', list)).execute()
  }
  const counts = db.selectFrom('comment_reaction_counts').select((eb) => [eb.ref('comment_id').as('target_id'), 'kind', 'count', sql<number>`0`.as('mine')]).where('comment_id', 'in', list).where('count', '>', 0)
  if (userId === null) return counts.execute()
  return counts.unionAll(db.selectFrom('comment_reactions').select((eb) => [eb.ref('comment_id').as('target_id'), 'kind', sql<number>`0`.as('count'), sql<number>`1`.as('mine')]).where('user_id', '=', userId).where('comment_id', 'in', list)).execute()
}


/**
 * Takes up to `limit` posts whose reactions changed, oldest change first, deleting their marks: one
 * process takes each (SKIP LOCKED on PostgreSQL; SQLite's one writer). Inside a unit of work.
 */
export async function takeChangedPosts(db: Executor, limit: number): Promise<number[]> {
  const taken = db.selectFrom('post_reaction_changes').select('post_id').orderBy('changed_at').limit(limit).$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked())
  const rows = await db.deleteFrom('post_reaction_changes').where('post_id', 'in', taken).returning('post_id').execute()
  return rows.map((row) => Number(row.post_id))
}

/** A page of a user's reactions on one kind of target, by target and kind after (`afterId`, `afterKind`): their data export. */
export function reactionsOfUserAfter(db: Executor, target: ReactionTarget, userId: number, afterId: number, afterKind: string, limit: number) {
  if (target === 'post') {
    return db
      .selectFrom('post_reactions')
      .select((eb) => [eb.ref('post_id').as('target_id'), 'kind', 'created_at'])
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('post_id', '>', afterId), eb.and([eb('post_id', '=', afterId), eb('kind', '>', afterKind)])]))
      .orderBy('post_id')
      .orderBy('kind')
      .limit(limit)
      .execute()
  }
  return db
    .selectFrom('comment_reactions')
    .select((eb) => [eb.ref('comment_id').as('target_id'), 'kind', 'created_at'])
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('comment_id', '>', afterId), eb.and([eb('comment_id', '=', afterId), eb('kind', '>', afterKind)])]))
    .orderBy('comment_id')
    .orderBy('kind')
    .limit(limit)
    .execute()
}

/** This slice's data access for its service (src/db/repository.ts). */
export const reactionsFunctions = { addReaction, removeReaction, summaryRows, reactionsOfUserAfter, takeChangedPosts }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const reactionsReadTargets: ReadTargets<typeof reactionsFunctions> = {
  addReaction: 'write',
  removeReaction: 'write',
  summaryRows: 'replica',
  reactionsOfUserAfter: 'primary',
  takeChangedPosts: 'write',
}

export type ReactionsRepository = Repository<typeof reactionsFunctions>
