// Scheduled publishing's SQL (docs/api.md "Scheduled publishing"): the live scheduled posts whose
// time has come, and when the next one's comes; both read the partial index on publish_at.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso, toIsoString } from '../../shared/timestamps.js'

/** The live scheduled posts whose time has come, the earliest first: their ids and authors. */
export async function dueToPublish(db: Executor, limit: number): Promise<{ id: number; authorId: number }[]> {
  const rows = await db.selectFrom('posts').select(['id', 'author_id']).where('status', '=', 'scheduled').where('publish_at', '<=', nowIso()).where('is_deleted', '=', 0).orderBy('publish_at').limit(limit).execute()
  return rows.map((row) => ({ id: row.id, authorId: row.author_id }))
}

/** When the next live scheduled post goes out (epoch ms); undefined when none is waiting. */
export async function nextPublishAt(db: Executor): Promise<number | undefined> {
  const row = await db.selectFrom('posts').select('publish_at').where('status', '=', 'scheduled').where('is_deleted', '=', 0).orderBy('publish_at').limit(1).executeTakeFirst()
  return row?.publish_at ? Date.parse(toIsoString(row.publish_at)) : undefined
}

export const postScheduleFunctions = { dueToPublish, nextPublishAt }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const postScheduleReadTargets: ReadTargets<typeof postScheduleFunctions> = {
  dueToPublish: 'primary',
  nextPublishAt: 'primary',
}

export type PostScheduleRepository = Repository<typeof postScheduleFunctions>
