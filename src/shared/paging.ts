// Paging as services see it: which page is asked for, and the rows of it with (when asked) the
// total they come from and the key to continue from. The HTTP envelope around a page, and the
// opaque cursor that carries the key, are the API's business (src/api/common/page-envelope.ts).

export interface PageRequest {
  /** 1-based; ignored when `after` is given. */
  page: number
  limit: number
  /** Count every matching row too (lists that answer with an envelope need it). */
  countTotal: boolean
  /**
   * Keyset paging: the rows that follow this sort key (the last one of the previous page),
   * however deep, at the cost of the first page. Without it, the page's OFFSET.
   */
  after?: number
  /** Report the key to continue from (Paged.nextKey): one more row is read to know whether any follow. */
  withNextKey?: boolean
}

export interface Paged<T> {
  items: T[]
  /** Present when the request asked for it. */
  total?: number
  /** The sort key of the last item, when the request asked for it and more rows follow. */
  nextKey?: number
}

/** Which rows a page reads: `limit` of them, from `offset` or, in keyset paging, after the key `after`. */
export interface RowWindow {
  offset: number
  limit: number
  after?: number
}

export function offsetOf(request: Pick<PageRequest, 'page' | 'limit'>): number {
  return (request.page - 1) * request.limit
}

export interface PageSource<Row> {
  rows: (window: RowWindow) => Promise<Row[]>
  count: () => Promise<number>
  /**
   * The rows and their total in one read, where the source can (a total in a column of each row):
   * used when the total is asked for; an empty page's total (undefined) is then counted apart.
   */
  rowsWithTotal?: (window: RowWindow) => Promise<{ rows: Row[]; total: number | undefined }>
  /** The row's sort key (the key keyset paging continues after). */
  keyOf: (row: Row) => number
}

/** A page of rows mapped to items, and (when asked) the total they are counted from, fetched side by side. */
export async function fetchPaged<Row, T>(request: PageRequest, source: PageSource<Row>, map: (row: Row) => T): Promise<Paged<T>> {
  const { limit, after, withNextKey = false } = request
  const window: RowWindow = { offset: after === undefined ? offsetOf(request) : 0, limit: withNextKey ? limit + 1 : limit, after }
  const [found, total] = request.countTotal && source.rowsWithTotal ? await rowsAndTotal(source.rowsWithTotal, source.count, window) : await Promise.all([source.rows(window), request.countTotal ? source.count() : undefined])
  const page = found.length > limit ? found.slice(0, limit) : found
  const last = page[page.length - 1]
  const nextKey = withNextKey && found.length > limit && last !== undefined ? source.keyOf(last) : undefined
  return { items: page.map(map), total, nextKey }
}

async function rowsAndTotal<Row>(read: NonNullable<PageSource<Row>['rowsWithTotal']>, count: () => Promise<number>, window: RowWindow): Promise<[Row[], number]> {
  const { rows, total } = await read(window)
  return [rows, total ?? (await count())]
}

/** Every item of a paged list, page after page (an export's sections): memory holds one page. */
export async function* everyItem<T>(fetch: (request: PageRequest) => Promise<Paged<T>>, limit = 200): AsyncGenerator<T> {
  for (let page = 1; ; page += 1) {
    const { items } = await fetch({ page, limit, countTotal: false })
    yield* items
    if (items.length < limit) return
  }
}

/**
 * Every row of a keyset-paged source, page after page (an export's sections): `read` gives the
 * rows after a key (`first` to begin), `keyOf` the key a row ends its page at. Memory holds one page.
 */
export async function* everyRowAfter<Row, Key>(read: (after: Key, limit: number) => Promise<Row[]>, keyOf: (row: Row) => Key, first: Key, limit = 500): AsyncGenerator<Row> {
  let after = first
  for (;;) {
    const rows = await read(after, limit)
    yield* rows
    if (rows.length < limit) return
    after = keyOf(rows[rows.length - 1]!)
  }
}
