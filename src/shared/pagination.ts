import { Type } from 'typebox'
import type { TSchema } from 'typebox'

export interface Page<T> {
  data: T[]
  total_count: number
  has_more: boolean
  page: number
  items_per_page: number
}

export function offsetOf(page: number, itemsPerPage: number): number {
  return (page - 1) * itemsPerPage
}

/** One page of rows and the total they are counted from, fetched side by side. */
export async function fetchPage<T>(
  page: number,
  itemsPerPage: number,
  rows: (offset: number, limit: number) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const [data, total] = await Promise.all([rows(offsetOf(page, itemsPerPage), itemsPerPage), count()])
  return toPage(data, total, page, itemsPerPage)
}

function toPage<T>(data: T[], totalCount: number, page: number, itemsPerPage: number): Page<T> {
  return {
    data,
    total_count: totalCount,
    has_more: offsetOf(page, itemsPerPage) + data.length < totalCount,
    page,
    items_per_page: itemsPerPage,
  }
}

/** The schema of a `Page` of `item`s, named `title` in the OpenAPI documents. */
export function PageSchema<T extends TSchema>(item: T, title: string) {
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
