// Blocking through HTTP on both databases: the list and its idempotent changes, what leaves the
// blocker's lists (posts, their totals, comments) and stream, and what the blocked person may no
// longer do (comment on or react to the blocker's posts and comments: 403 `blocked`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { openStream } from '../../../test/helpers/sse.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

let t: TestApp
let base: string
let blocker: LoggedIn
let pest: LoggedIn
let bystander: LoggedIn

const send = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(who: LoggedIn, title: string): Promise<number> {
  const response = await send(who, 'POST', '/posts', { title, text: 'Text' })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

const postIds = async (who: LoggedIn, query = '') => {
  const page = (await send(who, 'GET', `/posts?limit=100${query}`)).json<{ data: { id: number }[]; total_count: number }>()
  return { ids: page.data.map((post) => post.id), total: page.total_count }
}

beforeAll(async () => {
  t = await createTestApp()
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  blocker = await seedAndLogin(t.app)
  pest = await seedAndLogin(t.app)
  bystander = await seedAndLogin(t.app)
})

afterAll(async () => {
  await t.close()
})

describe('the list of blocks', () => {
  it('blocks once however often it is asked, lists it, and lifts it; never oneself or nobody', async () => {
    const someone = await seedAndLogin(t.app)
    expect((await send(blocker, 'POST', '/users/me/blocks', { user_id: someone.user.id })).statusCode).toBe(201)
    const again = await send(blocker, 'POST', '/users/me/blocks', { user_id: someone.user.id })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ user_id: someone.user.id })
    const listed = (await send(blocker, 'GET', '/users/me/blocks')).json<{ data: { user_id: number }[]; total_count: number }>()
    expect(listed.data.map((block) => block.user_id)).toContain(someone.user.id)
    expect((await send(blocker, 'DELETE', `/users/me/blocks/${someone.user.id}`)).statusCode).toBe(200)
    expect((await send(blocker, 'DELETE', `/users/me/blocks/${someone.user.id}`)).statusCode).toBe(200)
    expect((await send(blocker, 'GET', '/users/me/blocks')).json<{ data: { user_id: number }[] }>().data.map((block) => block.user_id)).not.toContain(someone.user.id)
    expect((await send(blocker, 'POST', '/users/me/blocks', { user_id: blocker.user.id })).json()).toMatchObject({ code: 'validation_failed' })
    expect((await send(blocker, 'POST', '/users/me/blocks', { user_id: 2_147_483_647 })).json()).toMatchObject({ code: 'user_not_found' })
    expect((await send(null, 'GET', '/users/me/blocks')).statusCode).toBe(401)
  })
})

describe('what a block does', () => {
  let pestPost: number
  let blockerPost: number
  let pestComment: number
  let stream: Awaited<ReturnType<typeof openStream>>

  beforeAll(async () => {
    pestPost = await newPost(pest, 'From the pest')
    blockerPost = await newPost(blocker, 'From the blocker')
    pestComment = (await send(pest, 'POST', `/posts/${blockerPost}/comments`, { text: 'Before the block' })).json<{ id: number }>().id
    await send(bystander, 'POST', `/posts/${blockerPost}/comments`, { text: 'A bystander' })
    expect((await send(blocker, 'POST', '/users/me/blocks', { user_id: pest.user.id })).statusCode).toBe(201)
    stream = await openStream(`${base}${V2}/events/stream`, blocker.headers)
  })

  afterAll(() => stream.close())

  it("takes the blocked person's posts out of the blocker's lists, searches, cursor pages and totals, and no one else's", async () => {
    const mine = await postIds(blocker)
    expect(mine.ids).not.toContain(pestPost)
    expect(mine.ids).toContain(blockerPost)
    expect(mine.total).toBe(mine.ids.length)
    const searched = await postIds(blocker, '&search=pest')
    expect(searched).toEqual({ ids: [], total: 0 })
    const byAuthor = await postIds(blocker, `&author_id=${pest.user.id}`)
    expect(byAuthor).toEqual({ ids: [], total: 0 })
    let cursor: string | null = null
    const paged: number[] = []
    do {
      const page: { data: { id: number }[]; next_cursor: string | null } = (await send(blocker, 'GET', `/posts?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json()
      paged.push(...page.data.map((post) => post.id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(paged).toEqual(mine.ids)
    expect((await postIds(bystander)).ids).toContain(pestPost)
    // The post itself is still there to open by its id.
    expect((await send(blocker, 'GET', `/posts/${pestPost}`)).statusCode).toBe(200)
  })

  it("takes the blocked person's comments out of the blocker's threads", async () => {
    const threads = (await send(blocker, 'GET', `/posts/${blockerPost}/comments`)).json<{ data: { id: number; text: string }[]; total_count: number }>()
    expect(threads.data.map((comment) => comment.text)).toEqual(['A bystander'])
    expect(threads.total_count).toBe(1)
    const others = (await send(bystander, 'GET', `/posts/${blockerPost}/comments`)).json<{ data: { id: number }[] }>()
    expect(others.data.map((comment) => comment.id)).toContain(pestComment)
  })

  it("refuses the blocked person's comments, replies and reactions on the blocker's posts and comments (403 blocked), naming nobody", async () => {
    const refused = await send(pest, 'POST', `/posts/${blockerPost}/comments`, { text: 'Let me in' })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'blocked' })
    expect(refused.body).not.toContain(blocker.user.username)
    expect((await send(pest, 'PUT', `/posts/${blockerPost}/reactions/like`)).json()).toMatchObject({ code: 'blocked' })
    const blockersComment = (await send(blocker, 'POST', `/posts/${pestPost}/comments`, { text: 'On the pest’s post' })).json<{ id: number }>()
    expect((await send(pest, 'POST', `/posts/${pestPost}/comments`, { text: 'Reply', parent_id: blockersComment.id })).json()).toMatchObject({ code: 'blocked' })
    expect((await send(pest, 'PUT', `/comments/${blockersComment.id}/reactions/like`)).json()).toMatchObject({ code: 'blocked' })
    // Elsewhere they go on as before.
    expect((await send(pest, 'POST', `/posts/${pestPost}/comments`, { text: 'On my own post' })).statusCode).toBe(201)
  })

  it("keeps the blocked person's posts and comments off the blocker's stream", async () => {
    await newPost(pest, 'Unheard')
    await send(pest, 'POST', `/posts/${pestPost}/comments`, { text: 'Unheard comment' })
    const heard = await newPost(bystander, 'Heard')
    await waitFor(() => stream.events().some((frame) => frame.event === 'post.created' && (JSON.parse(frame.data ?? '{}') as { data: { id: number } }).data.id === heard))
    const fromPest = stream.events().filter((frame) => (frame.data ?? '').includes('Unheard'))
    expect(fromPest).toEqual([])
  })
})
