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

export function toPage<T>(data: T[], totalCount: number, page: number, itemsPerPage: number): Page<T> {
  return {
    data,
    total_count: totalCount,
    has_more: offsetOf(page, itemsPerPage) + data.length < totalCount,
    page,
    items_per_page: itemsPerPage,
  }
}
