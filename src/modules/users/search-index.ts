// Keeps SQLite's user search index in one segment. Measured on 10,000 users (docs/performance.md):
// a name search read 1 segment in 33-43 µs; a hundred single-row sign-ups later the index had 11
// and the search took 257 µs, and it stayed at 9-17 segments as sign-ups went on. A merge
// rewrites the whole index, so it runs in short steps (each its own write, a few milliseconds),
// with the event loop free between them, and only once the segments have piled up.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { isPostgres } from '../../db/dialect.js'
import type { Executor } from '../../db/schema.js'
import { countSearchIndexSegments, mergeSearchIndexStep } from './search-index.repository.js'

/** Below this the index is left alone: a merge rewrites all of it. */
export const SEARCH_INDEX_MERGE_AT = 4
const PAGES_PER_STEP = 200
// 200 pages of 4 KiB a step: 2,000 steps rewrite an index of 1.6 GB, far more than 1M users make.
const MAX_STEPS = 2000

/**
 * Merges the index into one segment when it has SEARCH_INDEX_MERGE_AT or more; returns how many
 * segments it left. Several processes may run it at once: SQLite takes their steps one at a time,
 * and each goes on from where the last one stopped. Stops between steps once `signal` aborts
 * (shutdown); the next run goes on. PostgreSQL's trigram indexes need nothing.
 */
export async function compactSearchIndex(db: Executor, signal?: AbortSignal): Promise<number | undefined> {
  if (isPostgres(db)) return undefined
  let segments = await countSearchIndexSegments(db)
  if (segments < SEARCH_INDEX_MERGE_AT) return segments
  for (let step = 0; step < MAX_STEPS && segments > 1 && !signal?.aborted; step++) {
    await mergeSearchIndexStep(db, PAGES_PER_STEP)
    segments = await countSearchIndexSegments(db)
    await nextTurn()
  }
  return segments
}
