// Keeps SQLite's user search index in one segment: FTS5 writes each transaction's entries as a
// new segment, every search reads every segment, and single-row sign-ups leave the index in
// pieces that FTS5's own merging never fully joins (docs/performance.md has the figures). A
// merge rewrites the whole index, so it runs in short steps (each its own write), with the event
// loop free between them, and only once the segments have piled up.
import { setImmediate as nextTurn } from 'node:timers/promises'

import type { SearchIndexRepository } from './search-index.repository.js'

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
export async function compactSearchIndex(index: SearchIndexRepository, signal?: AbortSignal): Promise<number | undefined> {
  let segments = await index.countSearchIndexSegments()
  if (segments === undefined || segments < SEARCH_INDEX_MERGE_AT) return segments
  for (let step = 0; step < MAX_STEPS && segments !== undefined && segments > 1 && !signal?.aborted; step++) {
    await index.mergeSearchIndexStep(PAGES_PER_STEP)
    segments = await index.countSearchIndexSegments()
    await nextTurn()
  }
  return segments
}
