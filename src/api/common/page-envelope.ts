// The paginated envelope every enveloped list answers with (v1's users list, every v2 list):
// {data, total_count, has_more, page, items_per_page}. v2's lists of users and posts add keyset
// paging: `cursor` in the query, `next_cursor` in the envelope (docs/api.md, Version 2).
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

import { RuleViolation } from '../../shared/errors.js'
import type { Paged,PageRequest } from '../../shared/paging.js'
import { offsetOf } from '../../shared/paging.js'

export interface PageEnvelope<T> {
  data: T[]
  total_count: number
  has_more: boolean
  page: number
  items_per_page: number
}

export interface CursorPageEnvelope<T> extends PageEnvelope<T> {
  next_cursor: string | null
}

export { INVALID_CURSOR } from '../../shared/json-cursor.js'
import { INVALID_CURSOR } from '../../shared/json-cursor.js'
const CURSOR_PREFIX = 'k'

/** The cursor query parameter of a v2 list. */
export const CursorParameter = Type.String({
  minLength: 1,
  // A sorted list's cursor carries the last item's values of its sort keys (a title among them).
  maxLength: 1024,
  description: 'Opaque: the next_cursor of the previous page. Reads the rows after it at the cost of the first page, however deep; page is then ignored.',
})

/** Opaque to clients: the sort key of the last item, so that changing it is our business. */
export const encodeCursor = (key: number) => Buffer.from(`${CURSOR_PREFIX}${key}`).toString('base64url')

/** The sort key a cursor carries; 422 for anything this service did not write. */
export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString()
  const key = /^k(\d{1,15})$/.exec(text)?.[1]
  if (key === undefined || encodeCursor(Number(key)) !== cursor) throw new RuleViolation('cursor', INVALID_CURSOR, 'cursor', { location: 'query' })
  return Number(key)
}

/** The page request of a list that pages by cursor as well as by number. */
export function cursorPageRequest(query: { page: number; limit: number; cursor?: string }): PageRequest {
  const { page, limit, cursor } = query
  return { page, limit, countTotal: true, withNextKey: true, ...(cursor === undefined ? {} : { after: decodeCursor(cursor) }) }
}

/** Wraps a page that was fetched with its total (countTotal: true), mapping each item to the version's shape. */
export function toPageEnvelope<T, U>(paged: Paged<T>, request: Pick<PageRequest, 'page' | 'limit' | 'after'>, map: (item: T) => U): PageEnvelope<U> {
  const total = paged.total ?? 0
  const { page, limit } = request
  return {
    data: paged.items.map(map),
    total_count: total,
    // Past an unknown number of rows (a cursor), only the extra row read tells whether more follow.
    has_more: request.after === undefined ? offsetOf({ page, limit }) + paged.items.length < total : paged.nextKey !== undefined,
    page,
    items_per_page: limit,
  }
}

/** As toPageEnvelope, for a page fetched with cursorPageRequest: adds next_cursor (null on the last page). */
export function toCursorPageEnvelope<T, U>(paged: Paged<T>, request: PageRequest, map: (item: T) => U): CursorPageEnvelope<U> {
  // Not a spread of toPageEnvelope's result with one more property: that is the slow path of V8 on Node 20 (toPostReadV2).
  const envelope = toPageEnvelope(paged, request, map)
  return { data: envelope.data, total_count: envelope.total_count, has_more: envelope.has_more, page: envelope.page, items_per_page: envelope.items_per_page, next_cursor: paged.nextKey === undefined ? null : encodeCursor(paged.nextKey) }
}

const envelopeProperties = <T extends TSchema>(item: T) => ({
  data: Type.Array(item),
  total_count: Type.Integer(),
  has_more: Type.Boolean(),
  page: Type.Integer(),
  items_per_page: Type.Integer(),
})

/** The schema of a PageEnvelope of `item`s, named `title` in the OpenAPI documents. */
export function PageEnvelopeSchema<T extends TSchema>(item: T, title: string) {
  return Type.Object(envelopeProperties(item), { title })
}

/** The schema of a CursorPageEnvelope of `item`s. */
export function CursorPageEnvelopeSchema<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      ...envelopeProperties(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
    },
    { title },
  )
}
