// Paging as services see it: which page is asked for, and the rows of it with (when asked) the
// total they come from. The HTTP envelope around a page is the API's business (src/api/common/page-envelope.ts).

export interface PageRequest {
  /** 1-based. */
  page: number
  limit: number
  /** Count every matching row too (lists that answer with an envelope need it). */
  countTotal: boolean
}

export interface Paged<T> {
  items: T[]
  /** Present when the request asked for it. */
  total?: number
}

export function offsetOf(request: Pick<PageRequest, 'page' | 'limit'>): number {
  return (request.page - 1) * request.limit
}

export interface PageSource<Row> {
  rows: (offset: number, limit: number) => Promise<Row[]>
  count: () => Promise<number>
}

/** A page of rows mapped to items, and (when asked) the total they are counted from, fetched side by side. */
export async function fetchPaged<Row, T>(request: PageRequest, source: PageSource<Row>, map: (row: Row) => T): Promise<Paged<T>> {
  const rows = source.rows(offsetOf(request), request.limit)
  if (!request.countTotal) return { items: (await rows).map(map) }
  const [found, total] = await Promise.all([rows, source.count()])
  return { items: found.map(map), total }
}
