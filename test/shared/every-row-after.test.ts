// The keyset walk every data export section reads through: every row once, in order, a page at a
// time, with a compound key as well as a plain one.
import { describe, expect, it } from 'vitest'

import { everyRowAfter } from '../../src/shared/paging.js'

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = []
  for await (const row of rows) found.push(row)
  return found
}

describe('everyRowAfter', () => {
  it('reads every row once across full pages, a last short page, and an exact multiple of the page', async () => {
    for (const count of [0, 1, 4, 5, 12]) {
      const ids = Array.from({ length: count }, (_, index) => index + 1)
      const asked: number[] = []
      const read = async (after: number, limit: number) => {
        asked.push(after)
        return ids.filter((id) => id > after).slice(0, limit)
      }
      expect(await collect(everyRowAfter(read, (id) => id, 0, 4)), `${count} rows`).toEqual(ids)
      // One read per page, and one more only when the last page was full.
      expect(asked.length).toBe(Math.floor(count / 4) + 1)
    }
  })

  it('continues after a compound key', async () => {
    const rows = [1, 2, 3].flatMap((id) => ['like', 'wow'].map((kind) => ({ id, kind })))
    const after = (row: { id: number; kind: string }, key: { id: number; kind: string }) => row.id > key.id || (row.id === key.id && row.kind > key.kind)
    const read = async (key: { id: number; kind: string }, limit: number) => rows.filter((row) => after(row, key)).slice(0, limit)
    expect(await collect(everyRowAfter(read, (row) => row, { id: 0, kind: '' }, 4))).toEqual(rows)
  })
})
