// SQLite's user search index (the FTS5 table users_search, 2026-11-21-06) as a structure:
// FTS5 writes each transaction's entries as a new segment and merges segments only as they pile
// up, and every search reads every segment.
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'

/**
 * How many segments the index is made of (FTS5's %_idx shadow table names each one); undefined
 * on PostgreSQL, whose trigram indexes have none.
 */
export async function countSearchIndexSegments(db: Executor): Promise<number | undefined> {
  if (isPostgres(db)) return undefined
  const { rows } = await sql<{ segments: number }>`select count(distinct segid) as segments from users_search_idx`.execute(db)
  return Number(rows[0]?.segments ?? 0)
}

/**
 * One step of merging every segment into one: FTS5's 'merge' with a negative budget works like
 * 'optimize', but writes about `pages` pages and returns; the next step goes on from there.
 */
export async function mergeSearchIndexStep(db: Executor, pages: number): Promise<void> {
  await sql`insert into users_search (users_search, rank) values ('merge', ${sql.lit(-Math.trunc(pages))})`.execute(db)
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const searchIndexFunctions = { countSearchIndexSegments, mergeSearchIndexStep }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const searchIndexReadTargets: ReadTargets<typeof searchIndexFunctions> = {
  countSearchIndexSegments: 'primary',
  mergeSearchIndexStep: 'write',
}

export type SearchIndexRepository = Repository<typeof searchIndexFunctions>
