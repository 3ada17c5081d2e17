// The query observer (tracing) sees prepared queries that skip Kysely: SQLite's answer at once,
// PostgreSQL's when its promise settles, failures with their error.
import { describe, expect, it, vi } from 'vitest'

import { observed } from '../../src/db/query-observer.js'

describe('observed queries', () => {
  it('report a query answered at once, and not one that did not run', () => {
    const observer = vi.fn()
    expect(observed(observer, 'select 1', () => [{ one: 1 }])).toEqual([{ one: 1 }])
    expect(observed(observer, 'select 2', () => undefined)).toBeUndefined()
    expect(observer).toHaveBeenCalledTimes(1)
    expect(observer).toHaveBeenCalledWith('select 1', expect.any(Number), expect.any(Number), undefined)
  })

  it('report a query answered by a promise only once it settles', async () => {
    const observer = vi.fn()
    let answer!: (rows: unknown[]) => void
    const rows = observed(observer, 'select 1', () => new Promise<unknown[]>((resolve) => (answer = resolve)))
    await Promise.resolve()
    expect(observer).not.toHaveBeenCalled()
    answer([{ one: 1 }])
    expect(await rows).toEqual([{ one: 1 }])
    expect(observer).toHaveBeenCalledTimes(1)
    expect(observer).toHaveBeenCalledWith('select 1', expect.any(Number), expect.any(Number), undefined)
  })

  it('report a failed query with its error, which still reaches the caller', async () => {
    const observer = vi.fn()
    const failure = new Error('connection refused')
    await expect(observed(observer, 'select 1', () => Promise.reject(failure))).rejects.toBe(failure)
    expect(() => observed(observer, 'select 2', () => { throw failure })).toThrow(failure)
    expect(observer).toHaveBeenNthCalledWith(1, 'select 1', expect.any(Number), expect.any(Number), failure)
    expect(observer).toHaveBeenNthCalledWith(2, 'select 2', expect.any(Number), expect.any(Number), failure)
  })
})
