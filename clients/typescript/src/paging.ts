// v2's user and post lists page by cursor: each page's `next_cursor` asks for the rows after it,
// at the cost of the first page however deep. `null` when no rows follow.

export interface CursorPage<T> {
  data: T[]
  next_cursor: string | null
}

/** Every item of a cursor-paged list, fetching the next page only when the previous one is used up. */
export async function* allItems<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T> {
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    yield* page.data
    cursor = page.next_cursor ?? undefined
  } while (cursor !== undefined)
}
