// The paginated envelope every enveloped list answers with (DESIGN.md: v1 users list, every v2
// list): {data, total_count, has_more, page, items_per_page}.
import { Type } from 'typebox'
import type { TSchema } from 'typebox'
import { offsetOf } from '../../shared/paging.js'
import type { Paged } from '../../shared/paging.js'

export interface PageEnvelope<T> {
  data: T[]
  total_count: number
  has_more: boolean
  page: number
  items_per_page: number
}

/** Wraps a page that was fetched with its total (countTotal: true), mapping each item to the version's shape. */
export function toPageEnvelope<T, U>(paged: Paged<T>, page: number, itemsPerPage: number, map: (item: T) => U): PageEnvelope<U> {
  const total = paged.total ?? 0
  return {
    data: paged.items.map(map),
    total_count: total,
    has_more: offsetOf({ page, limit: itemsPerPage }) + paged.items.length < total,
    page,
    items_per_page: itemsPerPage,
  }
}

/** The schema of a PageEnvelope of `item`s, named `title` in the OpenAPI documents. */
export function PageEnvelopeSchema<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      total_count: Type.Integer(),
      has_more: Type.Boolean(),
      page: Type.Integer(),
      items_per_page: Type.Integer(),
    },
    { title },
  )
}
