import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin,V1, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let author: LoggedIn
let other: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  for (const title of ['First', 'Second about cats', 'Third']) {
    await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title, text: 'body' }, headers: author.headers })
  }
})
afterAll(() => t.close())

describe('v2 posts', () => {
  it('lists posts in the envelope, newest first', async () => {
    const response = await t.app.inject({ url: `${V2}/posts/?limit=2` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({ total_count: 3, has_more: true, page: 1, items_per_page: 2 })
    expect(body.data.map((p: { title: string }) => p.title)).toEqual(['Third', 'Second about cats'])
    const searched = (await t.app.inject({ url: `${V2}/posts/?search=CATS` })).json()
    expect(searched).toMatchObject({ total_count: 1, has_more: false })
    const byAuthor = (await t.app.inject({ url: `${V2}/posts/?author_id=${other.user.id}` })).json()
    expect(byAuthor).toMatchObject({ total_count: 0, data: [] })
  })

  it('keeps v1 listing an array', async () => {
    const response = await t.app.inject({ url: `${V1}/posts/` })
    expect(Array.isArray(response.json())).toBe(true)
  })

  it('shares the post rules: create as the caller, author-only edits', async () => {
    const created = await t.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'Mine', text: 'x' }, headers: other.headers })
    expect(created.statusCode).toBe(201)
    expect(created.json().author_id).toBe(other.user.id)
    const id = created.json().id
    expectError(
      await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${id}`, payload: { title: 'Stolen' }, headers: author.headers }),
      403,
      'Not enough permissions',
    )
    const removed = await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${id}`, headers: other.headers })
    expect(removed.json()).toEqual({ message: 'Post deleted' })
    expectError(await t.app.inject({ url: `${V2}/posts/${id}` }), 404, 'Post not found')
  })
})
