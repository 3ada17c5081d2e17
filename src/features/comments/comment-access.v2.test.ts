// Who reads a comment, as a matrix: every actor (anonymous, the post's author, another user, a
// member and an admin of the post's organization, a member of another, a superuser, the admin's
// read-only API key) × every visibility × every status, with and without an organization, on
// every path that answers with comments or takes them (a post's threads, one comment, its
// replies, comment search, commenting, reacting to the post and to a comment, the stream's replay). Each cell is
// checked against the post policy's own answer (post-policy.ts). The paths are checked against the
// OpenAPI document: a route added next year that answers with comments fails here until it is in
// the matrix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { openStream } from '../../../test/helpers/sse.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import type { MemberRole, PostFacts, PostStatus, Reader, Visibility } from '../posts/index.js'
import { ANONYMOUS, mayComment, mayList, mayRead, POST_STATUSES, VISIBILITIES } from '../posts/index.js'

type Actor = 'anonymous' | 'author' | 'another user' | 'member' | 'org admin' | 'non-member' | 'superuser' | 'read-only API key'
const ACTORS: Actor[] = ['anonymous', 'author', 'another user', 'member', 'org admin', 'non-member', 'superuser', 'read-only API key']

/** Every route that answers with comments, by the path the matrix walks. */
const PATHS = {
  threads: 'GET /api/v2/posts/{post_id}/comments',
  comment: 'GET /api/v2/comments/{comment_id}',
  replies: 'GET /api/v2/comments/{comment_id}/replies',
  search: 'GET /api/v2/search',
} as const

interface MatrixPost extends PostFacts {
  id: number
  comments: 'open'
  commentId: number
  replyId: number
}

let t: TestApp
let base: string
let people: Record<Exclude<Actor, 'anonymous' | 'read-only API key'> | 'owner', LoggedIn>
let readOnlyKey: string
let org: { id: number; slug: string }
let otherOrg: { id: number; slug: string }
let posts: MatrixPost[]
let firstEventId: number

const json = <T>(response: { json(): unknown }) => response.json() as T

function headersOf(actor: Actor): Record<string, string> {
  if (actor === 'anonymous') return {}
  if (actor === 'read-only API key') return { 'x-api-key': readOnlyKey }
  return people[actor].headers
}

function readerOf(actor: Actor): Reader {
  if (actor === 'anonymous') return ANONYMOUS
  const roles: Partial<Record<Actor, [number, MemberRole][]>> = {
    author: [[org.id, 'member']],
    member: [[org.id, 'member']],
    'org admin': [[org.id, 'admin']],
    'read-only API key': [[org.id, 'admin']],
    'non-member': [[otherOrg.id, 'owner']],
  }
  const user = actor === 'read-only API key' ? people['org admin'] : people[actor]
  return { userId: user.user.id, isSuperuser: actor === 'superuser', orgRoles: new Map(roles[actor] ?? []), mayWrite: actor !== 'read-only API key' }
}

const call = (actor: Actor, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: headersOf(actor), ...(payload === undefined ? {} : { payload }) })
const label = (post: MatrixPost) => `${post.visibility}/${post.status}${post.orgId === null ? '' : '/org'}`

beforeAll(async () => {
  t = await createTestApp()
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  people = {
    owner: await seedAndLogin(t.app),
    author: await seedAndLogin(t.app),
    'another user': await seedAndLogin(t.app),
    member: await seedAndLogin(t.app),
    'org admin': await seedAndLogin(t.app),
    'non-member': await seedAndLogin(t.app),
    superuser: await seedAndLogin(t.app, {}, { superuser: true }),
  }
  org = json(await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people.owner.headers, payload: { name: 'Comment matrix' } }))
  otherOrg = json(await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people['non-member'].headers, payload: { name: 'Elsewhere' } }))
  const now = new Date().toISOString()
  await t.db.insertInto('org_memberships').values([
    { org_id: org.id, user_id: people.author.user.id, role: 'member', created_at: now },
    { org_id: org.id, user_id: people.member.user.id, role: 'member', created_at: now },
    { org_id: org.id, user_id: people['org admin'].user.id, role: 'admin', created_at: now },
  ]).execute()
  readOnlyKey = json<{ key: string }>(await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: people['org admin'].headers, payload: { name: 'reader', scopes: ['read'] } })).key

  // Each post is written published with a comment and a reply, then given its status: a draft
  // keeps what was said while it was out. The events start here.
  firstEventId = Number((await t.db.selectFrom('change_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0)
  posts = []
  for (const visibility of VISIBILITIES) {
    for (const status of POST_STATUSES) {
      for (const inOrg of visibility === 'org' ? [true] : [false, true]) {
        const payload = { title: `${visibility} ${status}${inOrg ? ' org' : ''}`, text: 'Matrix post', visibility, ...(inOrg ? { org_id: org.id } : {}) }
        const created = json<{ id: number; author_id: number; org_id: number | null }>(await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: people.author.headers, payload }))
        const said = await t.app.inject({ method: 'POST', url: `${V2}/posts/${created.id}/comments`, headers: people.author.headers, payload: { text: 'A comment about quokkas' } })
        expect(said.statusCode, said.body).toBe(201)
        const commentId = json<{ id: number }>(said).id
        const replyId = json<{ id: number }>(await t.app.inject({ method: 'POST', url: `${V2}/posts/${created.id}/comments`, headers: people.author.headers, payload: { text: 'A reply about quokkas', parent_id: commentId } })).id
        // A scheduled post is read as a draft until its time, a day away here.
        const unpublished = status === 'draft' ? { status } : status === 'scheduled' ? { publish_at: new Date(Date.now() + 86_400_000).toISOString() } : undefined
        if (unpublished) expect((await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${created.id}`, headers: people.author.headers, payload: unpublished })).statusCode).toBe(200)
        posts.push({ id: created.id, authorId: created.author_id, visibility: visibility as Visibility, status: status as PostStatus, orgId: created.org_id, comments: 'open', commentId, replyId })
      }
    }
  }
})

afterAll(async () => {
  await t.close()
})

describe('who reads a comment: the matrix', () => {
  it('has one post for each visibility and status, with and without an organization', () => {
    expect(posts).toHaveLength(21)
  })

  it.each(ACTORS)('threads, one comment and its replies, as %s: 404 unless the policy lets them read the post', async (actor) => {
    const reader = readerOf(actor)
    const wrong: string[] = []
    for (const post of posts) {
      const readable = mayRead(reader, post)
      const checks = [
        ['threads', await call(actor, 'GET', `${V2}/posts/${post.id}/comments`), 'post_not_found'],
        ['comment', await call(actor, 'GET', `${V2}/comments/${post.commentId}`), 'comment_not_found'],
        ['reply', await call(actor, 'GET', `${V2}/comments/${post.replyId}`), 'comment_not_found'],
        ['replies', await call(actor, 'GET', `${V2}/comments/${post.commentId}/replies`), 'comment_not_found'],
      ] as const
      for (const [path, response, code] of checks) {
        const expected = readable ? 200 : 404
        if (response.statusCode !== expected) wrong.push(`${path} of ${label(post)}: ${response.statusCode}, expected ${expected}`)
        if (!readable && json<{ code?: string }>(response).code !== code) wrong.push(`${path} of ${label(post)}: not ${code}`)
        if (!readable && response.body.includes('A comment')) wrong.push(`${path} of ${label(post)}: leaks its text`)
      }
      if (readable) {
        const page = json<{ data: { id: number; replies: { id: number }[] }[] }>(checks[0][1])
        expect(page.data.map((thread) => [thread.id, thread.replies.map((reply) => reply.id)]), `${label(post)} as ${actor}`).toEqual([[post.commentId, [post.replyId]]])
      }
    }
    expect(wrong).toEqual([])
  })

  it.each(ACTORS)('comment search, as %s: exactly the comments of the posts the policy lists to them, and counted so', async (actor) => {
    const expected = posts.filter((post) => mayList(readerOf(actor), post)).flatMap((post) => [post.commentId, post.replyId]).sort((a, b) => a - b)
    const response = await call(actor, 'GET', `${V2}/search?type=comments&q=quokkas&limit=50`)
    expect(response.statusCode, response.body).toBe(200)
    const page = json<{ data: { comment: { id: number } }[]; total_count: number }>(response)
    expect(page.data.map((hit) => hit.comment.id).sort((a, b) => a - b)).toEqual(expected)
    expect(page.total_count).toBe(expected.length)
  })

  it.each(ACTORS)('commenting and reacting, as %s: as the policy allows, 404 where they may not read', async (actor) => {
    const reader = readerOf(actor)
    const wrong: string[] = []
    for (const post of posts) {
      const readable = mayRead(reader, post)
      const signedIn = actor !== 'anonymous'
      // A read-only key is refused any change by its scopes, before anything of the post is looked at.
      const keyRefused = actor === 'read-only API key'
      const comment = await call(actor, 'POST', `${V2}/posts/${post.id}/comments`, { text: `From ${actor}` })
      const expectedComment = !signedIn ? 401 : keyRefused ? 403 : !readable ? 404 : mayComment(reader, post) ? 201 : 403
      if (comment.statusCode !== expectedComment) wrong.push(`comment on ${label(post)}: ${comment.statusCode}, expected ${expectedComment}`)
      const mayReact = readable && reader.mayWrite && post.status === 'published'
      for (const [what, url] of [['post', `${V2}/posts/${post.id}/reactions/like`], ['comment', `${V2}/comments/${post.commentId}/reactions/like`]] as const) {
        const reacted = await call(actor, 'PUT', url)
        const expected = !signedIn ? 401 : keyRefused ? 403 : !readable ? 404 : mayReact ? 200 : 403
        if (reacted.statusCode !== expected) wrong.push(`reaction to the ${what} of ${label(post)}: ${reacted.statusCode}, expected ${expected}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it.each(ACTORS.filter((actor) => actor !== 'read-only API key'))("the stream's replay, as %s: a comment's events for each post the policy lists to them now", async (actor) => {
    const reader = readerOf(actor)
    const stream = await openStream(`${base}${V2}/events/stream`, { ...headersOf(actor), 'last-event-id': String(firstEventId) })
    try {
      expect(stream.status).toBe(200)
      // A comment everyone hears, written once the stream is open: it comes after the whole replay.
      const open = posts.find((post) => post.visibility === 'public' && post.status === 'published' && post.orgId === null)!
      const marker = json<{ id: number }>(await t.app.inject({ method: 'POST', url: `${V2}/posts/${open.id}/comments`, headers: people.owner.headers, payload: { text: 'After the replay' } }))
      const heard = () => stream.events().filter((frame) => frame.event === 'comment.created').map((frame) => (JSON.parse(frame.data ?? '{}') as { data: { id: number; post_id: number } }).data)
      await waitFor(() => heard().some((comment) => comment.id === marker.id))
      const ours = new Set(posts.flatMap((post) => [post.commentId, post.replyId]))
      const replayed = heard().filter((comment) => ours.has(comment.id)).map((comment) => comment.id).sort((a, b) => a - b)
      const expected = posts.filter((post) => mayList(reader, post)).flatMap((post) => [post.commentId, post.replyId]).sort((a, b) => a - b)
      expect(replayed).toEqual(expected)
    } finally {
      stream.close()
    }
  })

  it('walks every route that answers with comments', async () => {
    const document = json<{ paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }>(await t.app.inject({ url: `${V2}/openapi.json` }))
    const answering = Object.entries(document.paths)
      .filter(([, operations]) => JSON.stringify(operations.get?.responses?.['200'] ?? {}).includes('"reply_count"'))
      .map(([path]) => `GET ${path}`)
    expect(answering.sort()).toEqual(Object.values(PATHS).sort())
  })
})
