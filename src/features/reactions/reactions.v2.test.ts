// Reactions through HTTP on both databases: idempotent adding and taking back, the kinds REACTIONS
// allows, who may react (readers of a published post or a visible comment), the summaries every
// post and comment read carries, and counts that stay exact under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

interface Summary {
  reaction_counts: Record<string, number>
  my_reactions: string[]
}

let t: TestApp
let author: LoggedIn
let fan: LoggedIn
let stranger: LoggedIn

const send = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(fields: object = {}): Promise<number> {
  const response = await send(author, 'POST', '/posts', { title: 'Reactable', text: 'React to me', ...fields })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  fan = await seedAndLogin(t.app)
  stranger = await seedAndLogin(t.app)
})

afterAll(async () => {
  await t.close()
})

describe('reacting to a post', () => {
  it('adds a reaction once however often it is put, takes it back, and answers the summary each time', async () => {
    const postId = await newPost()
    for (let i = 0; i < 2; i++) {
      const put = await send(fan, 'PUT', `/posts/${postId}/reactions/love`)
      expect(put.statusCode, put.body).toBe(200)
      expect(put.json<Summary>()).toEqual({ reaction_counts: { love: 1 }, my_reactions: ['love'] })
    }
    await send(fan, 'PUT', `/posts/${postId}/reactions/like`)
    expect((await send(author, 'PUT', `/posts/${postId}/reactions/like`)).json<Summary>()).toEqual({ reaction_counts: { like: 2, love: 1 }, my_reactions: ['like'] })

    // Every read of the post carries them: the caller's own in REACTIONS' order, none for nobody.
    expect((await send(fan, 'GET', `/posts/${postId}`)).json<Summary>()).toMatchObject({ reaction_counts: { like: 2, love: 1 }, my_reactions: ['like', 'love'] })
    expect((await send(null, 'GET', `/posts/${postId}`)).json<Summary>()).toMatchObject({ reaction_counts: { like: 2, love: 1 }, my_reactions: [] })
    const page = (await send(fan, 'GET', `/posts?author_id=${author.user.id}`)).json<{ data: (Summary & { id: number })[] }>()
    expect(page.data.find((post) => post.id === postId)).toMatchObject({ reaction_counts: { like: 2, love: 1 }, my_reactions: ['like', 'love'] })

    for (let i = 0; i < 2; i++) expect((await send(fan, 'DELETE', `/posts/${postId}/reactions/love`)).json<Summary>()).toEqual({ reaction_counts: { like: 2 }, my_reactions: ['like'] })
  })

  it('takes only the kinds REACTIONS names', async () => {
    const postId = await newPost()
    const response = await send(fan, 'PUT', `/posts/${postId}/reactions/angry`)
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'validation_failed' })
    // The refusal names every kind the setting allows, not just the first.
    expect(response.json<{ detail: string }>().detail).toBe('Invalid request: path.kind: Input should be one of "like", "love", "laugh", "wow", "sad"')
  })

  it('answers 404 for a post the caller may not read, 403 on a draft, 401 for nobody and 403 through a read-only key', async () => {
    const closed = await newPost({ visibility: 'private' })
    const unseen = await send(fan, 'PUT', `/posts/${closed}/reactions/like`)
    expect(unseen.statusCode).toBe(404)
    expect(unseen.json()).toMatchObject({ code: 'post_not_found' })
    const draft = await newPost({ status: 'draft' })
    expect((await send(author, 'PUT', `/posts/${draft}/reactions/like`)).json()).toMatchObject({ code: 'not_reactable' })
    const open = await newPost()
    expect((await send(null, 'PUT', `/posts/${open}/reactions/like`)).statusCode).toBe(401)
    const key = (await send(fan, 'POST', '/api-keys/', { name: 'reader', scopes: ['read'] })).json<{ key: string }>().key
    expect((await t.app.inject({ method: 'PUT', url: `${V2}/posts/${open}/reactions/like`, headers: { 'x-api-key': key } })).statusCode).toBe(403)
  })
})

describe('reacting to a comment', () => {
  it('counts on visible comments, shows them on every read of the comment, and refuses a hidden one', async () => {
    const postId = await newPost()
    const said = (await send(fan, 'POST', `/posts/${postId}/comments`, { text: 'Nice' })).json<{ id: number }>()
    expect((await send(author, 'PUT', `/comments/${said.id}/reactions/laugh`)).json<Summary>()).toEqual({ reaction_counts: { laugh: 1 }, my_reactions: ['laugh'] })
    const thread = (await send(author, 'GET', `/posts/${postId}/comments`)).json<{ data: Summary[] }>().data[0]!
    expect(thread).toMatchObject({ reaction_counts: { laugh: 1 }, my_reactions: ['laugh'] })
    expect((await send(stranger, 'GET', `/comments/${said.id}`)).json<Summary>()).toMatchObject({ reaction_counts: { laugh: 1 }, my_reactions: [] })
    await send(author, 'POST', `/comments/${said.id}/hide`, { reason: 'Hidden' })
    expect((await send(stranger, 'PUT', `/comments/${said.id}/reactions/like`)).json()).toMatchObject({ code: 'not_reactable' })
    expect((await send(stranger, 'PUT', '/comments/2147483647/reactions/like')).statusCode).toBe(404)
  })
})

describe('counts under concurrency', () => {
  it('ends at the true count after 100 reactions at once, and after 100 reactions and take-backs at once', async () => {
    const postId = await newPost()
    const kinds = ['like', 'love', 'laugh', 'wow', 'sad']
    const people: LoggedIn[] = []
    for (let i = 0; i < 10; i++) people.push(await seedAndLogin(t.app))
    const put = (who: LoggedIn, kind: string) => send(who, 'PUT', `/posts/${postId}/reactions/${kind}`)
    const take = (who: LoggedIn, kind: string) => send(who, 'DELETE', `/posts/${postId}/reactions/${kind}`)

    // Each of 10 people puts each of 5 kinds twice: 100 requests at once.
    const first = await Promise.all(people.flatMap((who) => kinds.flatMap((kind) => [put(who, kind), put(who, kind)])))
    expect(first.map((response) => response.statusCode)).toEqual(Array(100).fill(200))
    const after = (await send(null, 'GET', `/posts/${postId}`)).json<Summary>()
    expect(after.reaction_counts).toEqual(Object.fromEntries(kinds.map((kind) => [kind, 10])))

    // Half take each kind back twice while the other half put theirs again: 100 more at once.
    const second = await Promise.all(people.flatMap((who, index) => kinds.flatMap((kind) => (index < 5 ? [take(who, kind), take(who, kind)] : [put(who, kind)]))))
    expect(second.every((response) => response.statusCode === 200)).toBe(true)
    expect((await send(null, 'GET', `/posts/${postId}`)).json<Summary>().reaction_counts).toEqual(Object.fromEntries(kinds.map((kind) => [kind, 5])))
    const kept = await t.db.selectFrom('posts').select('reaction_count').where('id', '=', postId).executeTakeFirstOrThrow()
    expect(Number(kept.reaction_count)).toBe(25)
  })

  it('drops a post’s reactions and counts with it when it is removed for good', async () => {
    const postId = await newPost()
    await send(fan, 'PUT', `/posts/${postId}/reactions/wow`)
    const superuser = await seedAndLogin(t.app, {}, { superuser: true })
    expect((await send(superuser, 'DELETE', `/posts/${postId}/permanent`)).statusCode).toBe(200)
    expect(await t.db.selectFrom('post_reactions').select('kind').where('post_id', '=', postId).execute()).toEqual([])
    expect(await t.db.selectFrom('post_reaction_counts').select('kind').where('post_id', '=', postId).execute()).toEqual([])
  })
})

describe('post.reactions_changed', () => {
  it('announces a post whose reactions changed, coalesced, with its counts as they are and its author', async () => {
    const postId = await newPost()
    const hidden = await newPost({ visibility: 'private' })
    await send(fan, 'PUT', `/posts/${postId}/reactions/like`)
    await send(stranger, 'PUT', `/posts/${postId}/reactions/like`)
    await send(author, 'PUT', `/posts/${hidden}/reactions/wow`)
    await send(fan, 'PUT', `/posts/${postId}/reactions/wow`)
    await t.app.services.jobs.job('reaction-events')!.drain()
    const events = await t.db.selectFrom('change_events').select(['data', 'user_id']).where('type', '=', 'post.reactions_changed').where('subject', '=', `post:${postId}`).orderBy('id').execute()
    // However the runs fell between the three reactions, fewer events than reactions, the last with the final counts.
    expect(events.length).toBeGreaterThanOrEqual(1)
    expect(events.length).toBeLessThanOrEqual(3)
    expect(JSON.parse(events[events.length - 1]!.data)).toMatchObject({ id: postId, author_id: author.user.id, visibility: 'public', reaction_counts: { like: 2, wow: 1 } })
    expect(JSON.parse(events[0]!.data)).not.toHaveProperty('my_reactions')
    expect(Number(events[0]!.user_id)).toBe(author.user.id)
    // Nothing is left to announce.
    expect(await t.db.selectFrom('post_reaction_changes').select('post_id').execute()).toEqual([])
  })
})
