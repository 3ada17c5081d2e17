// A page of ranked search hits, whatever they are hits of (posts, comments): asked by its number or
// after the previous page's last hit, read one hit past the page to know whether another follows.

/** A hit as a search's query finds it: the record's id and its relevance (higher is better; comparable within one search only). */
export interface RankedId {
  id: number
  rank: number
}

/** Where the next page of hits starts: the last hit's rank and id. */
export type SearchAfter = RankedId

/** A page of search hits: by its number, or after the previous page's last hit. */
export interface SearchPageRequest {
  page: number
  limit: number
  after?: SearchAfter
}

/** The rows a repository reads for a page of hits: from the previous page's last hit, or at an offset. */
export interface HitWindow {
  offset: number
  limit: number
  after?: SearchAfter
}

/** The window of a page: one hit more than the page shows. */
export function hitWindow({ page, limit, after }: SearchPageRequest): HitWindow {
  return { offset: after === undefined ? (page - 1) * limit : 0, limit: limit + 1, after }
}

/** The hits the page shows of those hitWindow read, and where the next page starts when one follows. */
export function pageOfHits<Hit extends RankedId>(found: readonly Hit[], limit: number): { shown: Hit[]; next: SearchAfter | undefined } {
  const shown = found.slice(0, limit)
  const last = found.length > limit ? shown.at(-1) : undefined
  return { shown, next: last && { rank: last.rank, id: last.id } }
}
