// Comments through HTTP on both databases: threads and replies, tombstones, edits, who may comment
// (the post's `comments` setting, drafts, read-only keys), moderation with its security events,
// kept counts, and the change events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

interface CommentBody {
  id: number
  post_id: number
  parent_id: number | null
  author_id: number | null
  text: string | null
  status: string
  hidden_reason: string | null
  reply_count: number
  edited_at: string | null
  replies?: CommentBody[]
}
interface Page<T> {
  data: T[]
  total_count: number
  has_more: boolean
  next_cursor: string | null
}

let t: TestApp
let author: LoggedIn
let reader: LoggedIn
let other: LoggedIn
let superuser: LoggedIn

const send = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(fields: object = {}, who: LoggedIn = author): Promise<number> {
  const response = await send(who, 'POST', '/posts', { title: 'A post', text: 'To talk about', ...fields })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

async function comment(who: LoggedIn, postId: number, text: string, parentId?: number): Promise<CommentBody> {
  const response = await send(who, 'POST', `/posts/${postId}/comments`, { text, ...(parentId === undefined ? {} : { parent_id: parentId }) })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<CommentBody>()
}

const threads = async (who: LoggedIn | null, postId: number, query = '') => {
  const response = await send(who, 'GET', `/posts/${postId}/comments${query}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<Page<CommentBody>>()
}
const commentCountOf = async (postId: number) => (await send(author, 'GET', `/posts/${postId}`)).json<{ comment_count: number }>().comment_count

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  reader = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
})

afterAll(async () => {
  await t.close()
})

describe('threads and replies', () => {
  it('answers a post with threads, each with its first replies and its reply count, oldest or newest first, by cursor', async () => {
    const postId = await newPost()
    const first = await comment(reader, postId, 'First!')
    const second = await comment(other, postId, 'Second')
    const replies = []
    for (let i = 0; i < 5; i++) replies.push(await comment(i % 2 ? author : other, postId, `Reply ${i}`, first.id))
    expect(first).toMatchObject({ post_id: postId, parent_id: null, author_id: reader.user.id, text: 'First!', status: 'visible', reply_count: 0, edited_at: null })

    const page = await threads(null, postId)
    expect(page.data.map((thread) => thread.id)).toEqual([first.id, second.id])
    expect(page.total_count).toBe(2)
    expect(page.data[0]!.reply_count).toBe(5)
    expect(page.data[0]!.replies!.map((reply) => reply.text)).toEqual(['Reply 0', 'Reply 1', 'Reply 2'])
    expect(page.data[1]!.replies).toEqual([])
    expect((await threads(null, postId, '?order=newest')).data.map((thread) => thread.id)).toEqual([second.id, first.id])

    const one = await threads(null, postId, '?limit=1')
    expect(one.has_more).toBe(true)
    const next = await threads(null, postId, `?limit=1&cursor=${one.next_cursor}`)
    expect(next.data.map((thread) => thread.id)).toEqual([second.id])
    expect(next.next_cursor).toBeNull()

    const rest = (await send(null, 'GET', `/comments/${first.id}/replies?limit=2`)).json<Page<CommentBody>>()
    expect(rest.data.map((reply) => reply.text)).toEqual(['Reply 0', 'Reply 1'])
    expect(rest.total_count).toBe(5)
    const after = (await send(null, 'GET', `/comments/${first.id}/replies?limit=10&cursor=${rest.next_cursor}`)).json<Page<CommentBody>>()
    expect(after.data.map((reply) => reply.text)).toEqual(['Reply 2', 'Reply 3', 'Reply 4'])
    expect(await commentCountOf(postId)).toBe(7)
  })

  it('files a reply to a reply under its thread, and refuses a parent from another post', async () => {
    const postId = await newPost()
    const top = await comment(reader, postId, 'Top')
    const reply = await comment(other, postId, 'Reply', top.id)
    const nested = await comment(reader, postId, 'Reply to the reply', reply.id)
    expect(nested.parent_id).toBe(top.id)
    expect((await send(null, 'GET', `/comments/${top.id}`)).json<CommentBody>().reply_count).toBe(2)
    const elsewhere = await newPost()
    const refused = await send(reader, 'POST', `/posts/${elsewhere}/comments`, { text: 'Wrong thread', parent_id: top.id })
    expect(refused.statusCode).toBe(404)
    expect(refused.json()).toMatchObject({ code: 'comment_not_found' })
  })

  it('takes 1 to 5,000 characters with one visible, and names the field otherwise', async () => {
    const postId = await newPost()
    for (const text of ['', '   \n', 'x'.repeat(5001)]) {
      const response = await send(reader, 'POST', `/posts/${postId}/comments`, { text })
      expect(response.statusCode, JSON.stringify(text)).toBe(422)
      expect(response.json()).toMatchObject({ code: 'validation_failed' })
    }
    expect((await send(reader, 'POST', `/posts/${postId}/comments`, { text: 'x'.repeat(5000) })).statusCode).toBe(201)
    expect((await send(null, 'POST', `/posts/${postId}/comments`, { text: 'Anonymous' })).statusCode).toBe(401)
  })
})

describe('edits and deletions', () => {
  it('lets its author edit it (edited_at) and nobody else', async () => {
    const postId = await newPost()
    const mine = await comment(reader, postId, 'Tpyo')
    const edited = await send(reader, 'PATCH', `/comments/${mine.id}`, { text: 'Typo' })
    expect(edited.statusCode).toBe(200)
    expect(edited.json<CommentBody>()).toMatchObject({ text: 'Typo', status: 'visible' })
    expect(edited.json<CommentBody>().edited_at).not.toBeNull()
    for (const who of [author, other, superuser]) expect((await send(who, 'PATCH', `/comments/${mine.id}`, { text: 'Mine now' })).statusCode).toBe(403)
  })

  it('keeps a deleted comment as a tombstone while replies hang under it, with its words erased, and counts it no more', async () => {
    const postId = await newPost()
    const top = await comment(reader, postId, 'Something I regret')
    await comment(other, postId, 'An answer', top.id)
    const lonely = await comment(reader, postId, 'Nobody answered')
    expect(await commentCountOf(postId)).toBe(3)
    expect((await send(other, 'DELETE', `/comments/${top.id}`)).statusCode).toBe(403)
    expect((await send(reader, 'DELETE', `/comments/${top.id}`)).statusCode).toBe(200)
    expect((await send(reader, 'DELETE', `/comments/${lonely.id}`)).statusCode).toBe(200)
    const page = await threads(reader, postId)
    expect(page.data).toHaveLength(1)
    expect(page.data[0]).toMatchObject({ id: top.id, status: 'deleted', text: null, author_id: null, reply_count: 1 })
    expect(page.data[0]!.replies!.map((reply) => reply.text)).toEqual(['An answer'])
    expect(await commentCountOf(postId)).toBe(1)
    const stored = await t.db.selectFrom('comments').select('text').where('id', '=', top.id).executeTakeFirstOrThrow()
    expect(stored.text).toBe('')
    // Gone for every change after.
    expect((await send(reader, 'PATCH', `/comments/${top.id}`, { text: 'Back' })).statusCode).toBe(404)
    expect((await send(reader, 'DELETE', `/comments/${top.id}`)).statusCode).toBe(404)
    expect((await send(other, 'POST', `/posts/${postId}/comments`, { text: 'Reply to a tombstone', parent_id: top.id })).statusCode).toBe(404)
  })

  it("lets a superuser remove anyone's comment, recorded as the superuser's security event", async () => {
    const postId = await newPost()
    const target = await comment(reader, postId, 'Spam')
    expect((await send(superuser, 'DELETE', `/comments/${target.id}`)).statusCode).toBe(200)
    expect((await send(null, 'GET', `/comments/${target.id}`)).json<CommentBody>()).toMatchObject({ status: 'removed', text: null })
    const events = await t.db.selectFrom('security_events').select(['type', 'post_id', 'details']).where('user_id', '=', superuser.user.id).where('type', '=', 'comment_removed').execute()
    expect(events).toEqual([{ type: 'comment_removed', post_id: postId, details: JSON.stringify({ comment_id: target.id }) }])
  })
})

describe('who may comment', () => {
  it("follows the post's comments setting: open, members of its organization, closed", async () => {
    const org = (await send(author, 'POST', '/orgs', { name: `Comments ${Date.now()}` })).json<{ id: number; slug: string }>()
    const invited = await send(author, 'POST', `/orgs/${org.slug}/members`, { user_id: reader.user.id, role: 'member' })
    if (invited.statusCode !== 201) await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: reader.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    const membersOnly = await newPost({ org_id: org.id, comments: 'members' })
    expect((await send(null, 'GET', `/posts/${membersOnly}`)).json()).toMatchObject({ comments: 'members', comment_count: 0 })
    expect((await send(reader, 'POST', `/posts/${membersOnly}/comments`, { text: 'A member' })).statusCode).toBe(201)
    const outsider = await send(other, 'POST', `/posts/${membersOnly}/comments`, { text: 'Not a member' })
    expect(outsider.statusCode).toBe(403)
    expect(outsider.json()).toMatchObject({ code: 'comments_closed' })
    expect((await send(author, 'POST', `/posts/${membersOnly}/comments`, { text: 'Its author' })).statusCode).toBe(201)

    expect((await send(author, 'PATCH', `/posts/${membersOnly}`, { comments: 'closed' })).statusCode).toBe(200)
    for (const who of [reader, author, superuser]) expect((await send(who, 'POST', `/posts/${membersOnly}/comments`, { text: 'Closed' })).json()).toMatchObject({ code: 'comments_closed' })
    // What was said stays readable.
    expect((await threads(reader, membersOnly)).total_count).toBe(2)
  })

  it('never on a draft, and never through a read-only API key', async () => {
    const draft = await newPost({ status: 'draft' })
    expect((await send(author, 'POST', `/posts/${draft}/comments`, { text: 'Note to self' })).json()).toMatchObject({ code: 'comments_closed' })
    const postId = await newPost()
    const key = (await send(reader, 'POST', '/api-keys/', { name: 'reader', scopes: ['read'] })).json<{ key: string }>().key
    const refused = await t.app.inject({ method: 'POST', url: `${V2}/posts/${postId}/comments`, headers: { 'x-api-key': key }, payload: { text: 'Through a key' } })
    expect(refused.statusCode).toBe(403)
    const read = await t.app.inject({ url: `${V2}/posts/${postId}/comments`, headers: { 'x-api-key': key } })
    expect(read.statusCode).toBe(200)
  })
})

describe('moderation', () => {
  it("lets the post's author hide a comment, with the reason shown to the comment's author and the moderators only", async () => {
    const postId = await newPost()
    const rude = await comment(reader, postId, 'Rude words')
    expect((await send(other, 'POST', `/comments/${rude.id}/hide`, { reason: 'Not mine to hide' })).statusCode).toBe(403)
    const hidden = await send(author, 'POST', `/comments/${rude.id}/hide`, { reason: 'Be kind' })
    expect(hidden.statusCode).toBe(200)
    expect(hidden.json()).toMatchObject({ status: 'hidden', text: 'Rude words', hidden_reason: 'Be kind' })
    expect(await commentCountOf(postId)).toBe(0)
    expect((await send(reader, 'GET', `/comments/${rude.id}`)).json()).toMatchObject({ status: 'hidden', text: 'Rude words', hidden_reason: 'Be kind' })
    expect((await send(superuser, 'GET', `/comments/${rude.id}`)).json()).toMatchObject({ text: 'Rude words' })
    for (const who of [other, null]) {
      expect((await send(who, 'GET', `/comments/${rude.id}`)).json()).toMatchObject({ status: 'hidden', text: null, author_id: null, hidden_reason: null })
      expect((await threads(who, postId)).data).toEqual([])
    }
    expect((await threads(reader, postId)).data.map((thread) => thread.id)).toEqual([rude.id])
    expect((await threads(author, postId)).data.map((thread) => thread.id)).toEqual([rude.id])

    const shown = await send(author, 'POST', `/comments/${rude.id}/unhide`)
    expect(shown.json()).toMatchObject({ status: 'visible', hidden_reason: null })
    expect(await commentCountOf(postId)).toBe(1)
    const events = await t.db.selectFrom('security_events').select(['type', 'details']).where('user_id', '=', author.user.id).where('post_id', '=', postId).execute()
    expect(events.map((event) => event.type).sort()).toEqual(['comment_hidden', 'comment_unhidden'])
    expect(JSON.parse(events.find((event) => event.type === 'comment_hidden')!.details!)).toEqual({ comment_id: rude.id, reason: 'Be kind' })
  })
})

describe('totals', () => {
  it('answers every viewer a total_count of exactly the threads and replies they page through, as a thread is hidden, deleted, blocked, emptied and restored', async () => {
    const blocker = await seedAndLogin(t.app)
    const leaving = await seedAndLogin(t.app)
    const postId = await newPost()
    const plain = await comment(reader, postId, 'Plain')
    const hiddenAlone = await comment(reader, postId, 'Hidden, no replies')
    const hiddenAnswered = await comment(other, postId, 'Hidden, answered')
    const deletedAnswered = await comment(other, postId, 'Deleted, answered')
    const deletedAlone = await comment(other, postId, 'Deleted, alone')
    const byBlocked = await comment(other, postId, 'By someone blocked')
    const byLeaving = await comment(leaving, postId, 'Leaving soon')
    await comment(reader, postId, 'Answer', hiddenAnswered.id)
    const answerToDeleted = await comment(author, postId, 'Answer', deletedAnswered.id)
    await comment(other, postId, 'Blocked answer', plain.id)
    const hiddenReply = await comment(other, postId, 'Hidden answer', plain.id)
    await comment(reader, postId, 'Answer', plain.id)
    for (const [id, reason] of [[hiddenAlone.id, 'No'], [hiddenAnswered.id, 'No'], [hiddenReply.id, 'No']] as const) {
      expect((await send(author, 'POST', `/comments/${id}/hide`, { reason })).statusCode).toBe(200)
    }
    for (const id of [deletedAnswered.id, deletedAlone.id]) expect((await send(other, 'DELETE', `/comments/${id}`)).statusCode).toBe(200)
    expect((await send(blocker, 'POST', '/users/me/blocks', { user_id: other.user.id })).statusCode).toBe(201)
    expect(byBlocked.id).toBeGreaterThan(0)

    const viewers: [string, LoggedIn | null][] = [['nobody signed in', null], ['the hidden comments\' author', reader], ['a moderator', author], ['a superuser', superuser], ['a blocker', blocker], ['the blocked', other]]
    const holdsForEveryone = async (when: string) => {
      for (const [name, viewer] of viewers) {
        const page = await threads(viewer, postId, '?limit=100')
        expect(page.total_count, `${name}, ${when}: threads`).toBe(page.data.length)
        for (const thread of [plain, hiddenAnswered, deletedAnswered]) {
          const replies = await send(viewer, 'GET', `/comments/${thread.id}/replies?limit=100`)
          if (replies.statusCode === 404) continue
          const body = replies.json<Page<CommentBody>>()
          expect(body.total_count, `${name}, ${when}: replies of ${thread.text}`).toBe(body.data.length)
        }
      }
    }
    await holdsForEveryone('at first')
    expect((await threads(null, postId, '?limit=100')).total_count).toBe(5)
    expect((await threads(author, postId, '?limit=100')).total_count).toBe(6)

    // The only answer under a deleted comment goes: the tombstone leaves the threads of those who do not moderate.
    expect((await send(author, 'DELETE', `/comments/${answerToDeleted.id}`)).statusCode).toBe(200)
    await holdsForEveryone('after its answer went')
    expect((await threads(null, postId, '?limit=100')).total_count).toBe(4)
    // An account's comments go with it and come back with it.
    expect((await send(superuser, 'DELETE', `/users/${leaving.user.id}`)).statusCode).toBe(200)
    await holdsForEveryone('with an account deleted')
    expect((await threads(null, postId, '?limit=100')).total_count).toBe(3)
    expect((await send(superuser, 'POST', `/users/${leaving.user.id}/restore`)).statusCode).toBe(200)
    await holdsForEveryone('with it restored')
    expect((await send(author, 'POST', `/comments/${hiddenAlone.id}/unhide`)).statusCode).toBe(200)
    expect((await send(blocker, 'DELETE', `/users/me/blocks/${other.user.id}`)).statusCode).toBe(200)
    await holdsForEveryone('unhidden and unblocked')
    expect(byLeaving.id).toBeGreaterThan(0)
  })
})

describe('change events', () => {
  it('records comment.created, comment.updated, comment.hidden and comment.deleted, a hidden or deleted one (an edit while hidden too) without its words', async () => {
    const postId = await newPost()
    const said = await comment(reader, postId, 'Secret words')
    await send(reader, 'PATCH', `/comments/${said.id}`, { text: 'Other words' })
    await send(author, 'POST', `/comments/${said.id}/hide`, { reason: 'No' })
    // Its author edits it while hidden: the edit is no one else's to read.
    await send(reader, 'PATCH', `/comments/${said.id}`, { text: 'Hidden words' })
    await send(reader, 'DELETE', `/comments/${said.id}`)
    const rows = await t.db.selectFrom('change_events').select(['type', 'subject', 'user_id', 'data']).where('subject', '=', `comment:${said.id}`).orderBy('id').execute()
    expect(rows.map((row) => row.type)).toEqual(['comment.created', 'comment.updated', 'comment.hidden', 'comment.updated', 'comment.deleted'])
    expect(rows.every((row) => Number(row.user_id) === reader.user.id)).toBe(true)
    expect(JSON.parse(rows[1]!.data)).toMatchObject({ id: said.id, post_id: postId, text: 'Other words' })
    for (const row of rows.slice(2)) {
      expect(row.data).not.toContain('words')
      expect(JSON.parse(row.data)).toMatchObject({ id: said.id, post_id: postId, text: null, author_id: null })
    }
  })
})

describe('account deletion', () => {
  it("hides a deleted account's comments with it (a tombstone, counted no more) and brings them back when it is restored", async () => {
    const leaving = await seedAndLogin(t.app)
    const postId = await newPost()
    const said = await comment(leaving, postId, 'Bye')
    expect(await commentCountOf(postId)).toBe(1)
    expect((await send(superuser, 'DELETE', `/users/${leaving.user.id}`)).statusCode).toBe(200)
    expect(await commentCountOf(postId)).toBe(0)
    expect((await send(null, 'GET', `/comments/${said.id}`)).json()).toMatchObject({ status: 'deleted', text: null })
    const restored = await send(superuser, 'POST', `/users/${leaving.user.id}/restore`)
    expect(restored.statusCode, restored.body).toBe(200)
    expect(await commentCountOf(postId)).toBe(1)
    expect((await send(null, 'GET', `/comments/${said.id}`)).json()).toMatchObject({ status: 'visible', text: 'Bye' })
  })
})

describe('limits', () => {
  it("holds a tier's rules on commenting and reacting, as on any route", async () => {
    const tier = (await send(superuser, 'POST', '/tiers/', { name: `talkative_${process.pid}` })).json<{ id: number }>()
    for (const route of ['POST /api/v2/posts/{post_id}/comments', 'PUT /api/v2/posts/{post_id}/reactions/{kind}']) {
      const rule = await send(superuser, 'POST', `/tiers/${tier.id}/rate-limits`, { route, limit: 2, period_seconds: 60 })
      expect(rule.statusCode, rule.body).toBe(201)
    }
    const limited = await seedAndLogin(t.app)
    expect((await t.app.inject({ method: 'PATCH', url: `/services/v1/users/${limited.user.id}/tier`, payload: { tier_id: tier.id }, headers: superuser.headers })).statusCode).toBe(200)
    const postId = await newPost()
    const comments = [await send(limited, 'POST', `/posts/${postId}/comments`, { text: 'One' }), await send(limited, 'POST', `/posts/${postId}/comments`, { text: 'Two' }), await send(limited, 'POST', `/posts/${postId}/comments`, { text: 'Three' })]
    expect(comments.map((response) => response.statusCode)).toEqual([201, 201, 429])
    expect(comments[2]!.json()).toMatchObject({ code: 'rate_limited' })
    const reactions = [await send(limited, 'PUT', `/posts/${postId}/reactions/like`), await send(limited, 'PUT', `/posts/${postId}/reactions/love`), await send(limited, 'PUT', `/posts/${postId}/reactions/wow`)]
    expect(reactions.map((response) => response.statusCode)).toEqual([200, 200, 429])
  })
})

describe('an account removed for good', () => {
  it("erases its comments' words and keeps their places, so others' replies stay", async () => {
    const leaving = await seedAndLogin(t.app)
    const postId = await newPost()
    const theirs = await comment(leaving, postId, 'My words')
    const answer = await comment(reader, postId, 'An answer to them', theirs.id)
    expect(await commentCountOf(postId)).toBe(2)
    expect((await send(superuser, 'DELETE', `/users/${leaving.user.id}/permanent`)).statusCode).toBe(200)
    const page = await threads(null, postId)
    expect(page.data.map((thread) => [thread.id, thread.status, thread.text, thread.author_id])).toEqual([[theirs.id, 'deleted', null, null]])
    expect(page.data[0]!.replies!.map((reply) => reply.id)).toEqual([answer.id])
    expect(await commentCountOf(postId)).toBe(1)
    const stored = await t.db.selectFrom('comments').select(['text', 'author_id']).where('id', '=', theirs.id).executeTakeFirstOrThrow()
    expect(stored).toEqual({ text: '', author_id: null })
  })
})

describe('REQUIRE_VERIFIED_EMAIL', () => {
  it('lets only verified users comment and react, as it lets only them write posts', async () => {
    const strict = await createTestApp({ REQUIRE_VERIFIED_EMAIL: 'true' })
    try {
      const writer = await seedAndLogin(strict.app, {}, { verified: true })
      const unverified = await seedAndLogin(strict.app)
      const call = (who: LoggedIn, method: 'POST' | 'PUT', url: string, payload?: object) => strict.app.inject({ method, url: `${V2}${url}`, headers: who.headers, ...(payload === undefined ? {} : { payload }) })
      const postId = (await call(writer, 'POST', '/posts', { title: 'Verified only', text: 'Hello' })).json<{ id: number }>().id
      for (const refused of [await call(unverified, 'POST', `/posts/${postId}/comments`, { text: 'Me too' }), await call(unverified, 'PUT', `/posts/${postId}/reactions/like`)]) {
        expect(refused.statusCode).toBe(403)
        expect(refused.json()).toMatchObject({ code: 'email_not_verified' })
      }
      expect((await call(writer, 'POST', `/posts/${postId}/comments`, { text: 'Verified' })).statusCode).toBe(201)
      expect((await call(writer, 'PUT', `/posts/${postId}/reactions/like`)).statusCode).toBe(200)
    } finally {
      await strict.close()
    }
  })
})
