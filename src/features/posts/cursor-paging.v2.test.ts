// Keyset paging on v2's lists: `cursor` in, `next_cursor` out; `page` keeps working beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, seedUser,V1, V2 } from '../../../test/helpers/users.js'

interface Envelope {
  data: { id: number; title?: string }[]
  total_count: number
  has_more: boolean
  next_cursor?: string | null
}

let t: TestApp
let author: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app, { name: 'Cursor Author' })
  for (let i = 0; i < 6; i++) await seedUser(t.app, { name: `Cursor Walker ${i}` })
  for (let i = 0; i < 7; i++) {
    await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: `Post ${i}`, text: i % 2 ? 'odd one' : 'even one' }, headers: author.headers })
  }
})
afterAll(() => t.close())

const get = async (url: string): Promise<Envelope> => {
  const response = await t.app.inject({ url })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

/** Follows next_cursor from the first page (or from `cursor`) to the last, returning every id seen. */
async function walk(url: string, cursor?: string | null): Promise<{ ids: number[]; pages: Envelope[] }> {
  const pages: Envelope[] = []
  let page = await get(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url)
  pages.push(page)
  while (page.next_cursor) {
    expect(page.has_more).toBe(true)
    page = await get(`${url}&cursor=${encodeURIComponent(page.next_cursor)}`)
    pages.push(page)
  }
  expect(page.has_more).toBe(false)
  expect(page.next_cursor).toBeNull()
  return { ids: pages.flatMap((p) => p.data.map((item) => item.id)), pages }
}

describe('v2 cursor paging', () => {
  it('walks the users list to its end, the same rows as one big page, each once', async () => {
    const all = await get(`${V2}/users/?limit=100`)
    expect(all.next_cursor).toBeNull()
    const { ids, pages } = await walk(`${V2}/users/?limit=3`)
    expect(ids).toEqual(all.data.map((user) => user.id))
    expect(pages.length).toBe(Math.ceil(all.total_count / 3))
    for (const page of pages) expect(page.total_count).toBe(all.total_count)
  })

  it('gives page 1 a cursor, so a client can start by number and go on by cursor', async () => {
    const first = await get(`${V2}/users/?page=1&limit=2`)
    const second = await get(`${V2}/users/?page=2&limit=2`)
    const next = await get(`${V2}/users/?limit=2&cursor=${first.next_cursor}`)
    expect(next.data).toEqual(second.data)
    // One cursor, sent twice, is a malformed query like any repeated scalar parameter.
    expectError(await t.app.inject({ url: `${V2}/users/?cursor=${first.next_cursor}&cursor=${first.next_cursor}` }), 422)
  })

  it('neither repeats nor skips rows when rows are added or removed ahead of the cursor', async () => {
    const doomed = await seedUser(t.app, { name: 'Cursor Doomed' })
    const first = await get(`${V2}/users/?limit=2`)
    const before = await get(`${V2}/users/?limit=100`)
    const removed = doomed.id
    await t.app.services.users.softDelete({ id: removed, isSuperuser: true }, removed)
    const added = await seedUser(t.app, { name: 'Cursor Late Comer' })
    const rest = await walk(`${V2}/users/?limit=2`, first.next_cursor)
    const expected = [...before.data.slice(2).map((user) => user.id).filter((id) => id !== removed), added.id]
    expect(rest.ids).toEqual(expected)
  })

  it('walks search results and posts (newest first, filtered) the same way', async () => {
    const search = await walk(`${V2}/users/search?name=cursor%20walker&limit=4`)
    expect(search.ids).toHaveLength(6)
    expect(search.pages[0]?.total_count).toBe(6)

    const posts = await walk(`${V2}/posts/?limit=3&author_id=${author.user.id}`)
    expect(posts.ids).toHaveLength(7)
    expect([...posts.ids].sort((a, b) => b - a)).toEqual(posts.ids)
    const odd = await walk(`${V2}/posts/?limit=2&search=odd`)
    expect(odd.ids).toHaveLength(3)
    const every = await walk(`${V2}/posts/?limit=2`)
    expect(every.ids).toEqual((await get(`${V2}/posts/?limit=100`)).data.map((post) => post.id))
  })

  it('refuses a cursor it did not write with 422', async () => {
    const forged = [
      'abc',
      Buffer.from('k-1').toString('base64url'),
      Buffer.from('k1 or 1=1').toString('base64url'),
      Buffer.from('{"id":1}').toString('base64url'),
      Buffer.from('k99999999999999999999').toString('base64url'),
      `${Buffer.from('k1').toString('base64url')}=`,
    ]
    for (const cursor of forged) {
      expectError(await t.app.inject({ url: `${V2}/users/?cursor=${encodeURIComponent(cursor)}` }), 422, 'Invalid cursor')
      expectError(await t.app.inject({ url: `${V2}/posts/?cursor=${encodeURIComponent(cursor)}` }), 422, 'Invalid cursor')
    }
    expectError(await t.app.inject({ url: `${V2}/users/?cursor=${'a'.repeat(65)}` }), 422)
    // The error names the query parameter where it is, not a body.
    const named = await t.app.inject({ url: `${V2}/posts/?cursor=abc` })
    expect(named.json().errors).toEqual([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'cursor' }])
  })

  it('leaves v1 as it was: no cursor in the users envelope, posts still an array', async () => {
    const users = await get(`${V1}/users/?page=1&items_per_page=2`)
    expect(users).not.toHaveProperty('next_cursor')
    const posts = await t.app.inject({ url: `${V1}/posts/?limit=2` })
    expect(Array.isArray(posts.json())).toBe(true)
  })
})
