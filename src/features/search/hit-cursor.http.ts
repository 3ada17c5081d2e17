// The cursor of a page of search hits: opaque to clients, it carries the last hit's rank and id.
import { decodeJsonCursor, encodeJsonCursor, invalidCursor } from '../../shared/json-cursor.js'
import type { SearchAfter } from '../../shared/search-page.js'

const PREFIX = 'r'

export const encodeHitCursor = (after: SearchAfter) => encodeJsonCursor(PREFIX, [after.rank, after.id])

/** Where the next page of hits starts; 422 for a cursor this service did not write. */
export function decodeHitCursor(cursor: string): SearchAfter {
  const [rank, id, ...rest] = decodeJsonCursor(PREFIX, cursor)
  if (rest.length > 0 || typeof rank !== 'number' || !Number.isFinite(rank) || !Number.isSafeInteger(id) || (id as number) < 1) throw invalidCursor()
  return { rank, id: id as number }
}
