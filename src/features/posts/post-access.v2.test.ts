// Who reads a post, as a matrix: every actor (anonymous, the author, another user, a member, an
// admin of the post's organization, a member of another organization, a superuser, the admin's
// read-only API key) × every visibility × every status, with and without an organization, on
// every path that returns or announces posts (get, the address by slug, permissions, revisions, both versions' lists, search, ranked search, tags and their counts, the feeds, the trash and its restore,
// cursor pages, counts, the author's list, the caller's own, the organization's, the realtime
// stream, the admin overview), every post's attached files (their bytes and variants), and its
// custom fields of each level (public, private, server: CONTENT_SCHEMA) on every read and in
// filters. Each
// cell is checked against the policy's own answer (post-policy.ts). The paths are checked against
// the OpenAPI documents: a route added next year that answers with posts, or with a file's bytes,
// fails here until it is in the matrix.
import { parseJsonFeed } from 'feedsmith'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { multipart, PNG_1X1 } from '../../../test/helpers/multipart.js'
import type { SseClient } from '../../../test/helpers/sse.js'
import { openStream } from '../../../test/helpers/sse.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V1, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import type { MemberRole, PostFacts, PostStatus, Reader, Visibility } from './post-policy.js'
import { ANONYMOUS, fieldLevelOf, mayList, mayRead, permissionsOf, POST_STATUSES, VISIBILITIES } from './post-policy.js'

type Actor = 'anonymous' | 'author' | 'another user' | 'member' | 'org admin' | 'non-member' | 'superuser' | 'read-only API key'
const ACTORS: Actor[] = ['anonymous', 'author', 'another user', 'member', 'org admin', 'non-member', 'superuser', 'read-only API key']

/** Every path the matrix walks, by the route it calls; the route-table check holds the documents to this list. */
const PATHS = {
  get: 'GET /api/v2/posts/{post_id}',
  bySlug: 'GET /api/v2/posts/by-slug/{owner}/{slug}',
  permissions: 'GET /api/v2/posts/{post_id}/permissions',
  list: 'GET /api/v2/posts',
  search: 'GET /api/v2/search',
  ownList: 'GET /api/v2/users/me/posts',
  trash: 'GET /api/v2/users/me/trash',
  orgList: 'GET /api/v2/orgs/{org}/posts',
  v1Get: 'GET /services/v1/posts/{post_id}',
  v1List: 'GET /services/v1/posts',
} as const

/** Every route that answers with a file's bytes: a file attached to a post is read by whoever reads the post. */
const FILE_PATHS = {
  file: 'GET /api/v2/files/{file_id}',
  variant: 'GET /api/v2/files/{file_id}/variants/{preset}',
} as const

/** A data export's ZIP: no post's, read with its single-use link (data-export.v2.test.ts). */
const DATA_EXPORT_DOWNLOAD = 'GET /api/v2/exports/download'

interface MatrixPost extends PostFacts {
  id: number
  title: string
  slug: string
  /** Its attachments: a text file and an image. */
  fileId: number
  imageId: number
}

let t: TestApp
let base: string
let people: Record<Exclude<Actor, 'anonymous' | 'read-only API key'> | 'owner', LoggedIn>
let readOnlyKey: string
let org: { id: number; slug: string }
let otherOrg: { id: number; slug: string }
let posts: MatrixPost[]
const marker = `matrix${Date.now()}`
const streams = new Map<Actor, SseClient>()
let overviewPosts: number

const json = <T>(response: { json(): unknown }) => response.json() as T
/** A scheduled post's time: it stays scheduled (read as a draft) through the run. */
const TOMORROW = new Date(Date.now() + 86_400_000).toISOString()

/** A field of each level on every post: the author writes the first two, a superuser the third. */
const CONTENT_SCHEMA = {
  posts: {
    properties: {
      rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public' },
      note: { type: 'string', maxLength: 100, visibility: 'private' },
      crm_id: { type: 'string', visibility: 'server' },
    },
  },
  users: { properties: { team: { type: 'string', visibility: 'public' }, phone: { type: 'string', visibility: 'private' }, plan: { type: 'string', visibility: 'server' } } },
  orgs: { properties: { sector: { type: 'string', visibility: 'public' }, billing: { type: 'string', visibility: 'private' }, account: { type: 'string', visibility: 'server' } } },
}
const FIELDS_BY_LEVEL = { public: { rating: 3 }, private: { rating: 3, note: 'for editors' }, server: { rating: 3, note: 'for editors', crm_id: 'c-1' } }
/** The author's and the organization's fields, shown by their own rules: users.userFieldLevel, orgs.orgFieldLevel. */
const AUTHOR_FIELDS = { public: { team: 'core' }, private: { team: 'core', phone: '+1 555' }, server: { team: 'core', phone: '+1 555', plan: 'gold' } }
const ORG_FIELDS = { public: { sector: 'news' }, private: { sector: 'news', billing: 'monthly' }, server: { sector: 'news', billing: 'monthly', account: 'a-9' } }
/** The fields a reader sees of a post: those of their level (post-policy.ts fieldLevelOf) and below. */
const fieldsFor = (reader: Reader, post: PostFacts) => FIELDS_BY_LEVEL[fieldLevelOf(reader, post)]

function headersOf(actor: Actor): Record<string, string> {
  if (actor === 'anonymous') return {}
  if (actor === 'read-only API key') return { 'x-api-key': readOnlyKey }
  return people[actor].headers
}

/** The actor as the policy sees them: the roles they hold, and whether they may write. */
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

const call = (actor: Actor, url: string) => t.app.inject({ url, headers: headersOf(actor) })

async function uploadAsAuthor(filename: string, contentType: string, data: Buffer): Promise<number> {
  const form = multipart([{ field: 'file', filename, contentType, data }])
  const response = await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...people.author.headers } })
  expect(response.statusCode, response.body).toBe(201)
  return json<{ id: number }>(response).id
}

/** Every page of a v2 listing, following next_cursor. */
async function allPages(actor: Actor, url: string): Promise<{ ids: number[]; total: number }> {
  const ids: number[] = []
  let total = -1
  let cursor: string | null = null
  do {
    const separator = url.includes('?') ? '&' : '?'
    const response = await call(actor, `${url}${separator}limit=3${cursor ? `&cursor=${cursor}` : ''}`)
    expect(response.statusCode, `${url} as ${actor}`).toBe(200)
    // A search hit carries its post.
    const page = json<{ data: ({ id: number } | { post: { id: number } })[]; total_count: number; next_cursor: string | null }>(response)
    ids.push(...page.data.map((item) => ('post' in item ? item.post.id : item.id)))
    total = page.total_count
    cursor = page.next_cursor
  } while (cursor !== null)
  return { ids, total }
}

const ours = (ids: number[]) => ids.filter((id) => posts.some((post) => post.id === id)).sort((a, b) => a - b)
const expectedIds = (keep: (post: MatrixPost) => boolean) => posts.filter(keep).map((post) => post.id).sort((a, b) => a - b)
const label = (post: MatrixPost) => `${post.visibility}/${post.status}${post.orgId === null ? '' : '/org'}`

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(CONTENT_SCHEMA) })
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
  org = json(await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people.owner.headers, payload: { name: 'Matrix' } }))
  otherOrg = json(await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: people['non-member'].headers, payload: { name: 'Elsewhere' } }))
  const now = new Date().toISOString()
  await t.db.insertInto('org_memberships').values([
    { org_id: org.id, user_id: people.author.user.id, role: 'member', created_at: now },
    { org_id: org.id, user_id: people.member.user.id, role: 'member', created_at: now },
    { org_id: org.id, user_id: people['org admin'].user.id, role: 'admin', created_at: now },
  ]).execute()
  // The author's and the organization's fields of every level, each written by a superuser.
  for (const [url, fields] of [[`${V2}/users/${people.author.user.id}`, AUTHOR_FIELDS.server], [`${V2}/orgs/${org.id}`, ORG_FIELDS.server]] as const) {
    const written = await t.app.inject({ method: 'PATCH', url, headers: people.superuser.headers, payload: { fields } })
    expect(written.statusCode, written.body).toBe(200)
  }
  readOnlyKey = json<{ key: string }>(await t.app.inject({ method: 'POST', url: `${V2}/api-keys/`, headers: people['org admin'].headers, payload: { name: 'reader', scopes: ['read'] } })).key

  // Every stream opens before the posts are written: each hears exactly what the policy lists to it.
  for (const actor of ACTORS) {
    const stream = await openStream(`${base}${V2}/events/stream`, headersOf(actor))
    // Streams take sessions, never API keys (event-streams.v2.routes.ts).
    expect(stream.status, `stream as ${actor}`).toBe(actor === 'read-only API key' ? 403 : 200)
    if (stream.status === 200) streams.set(actor, stream)
    else stream.close()
  }

  posts = []
  for (const visibility of VISIBILITIES) {
    for (const status of POST_STATUSES) {
      for (const inOrg of visibility === 'org' ? [true] : [false, true]) {
        const fileId = await uploadAsAuthor('notes.txt', 'text/plain', Buffer.from(`${visibility} ${status}`))
        const imageId = await uploadAsAuthor('picture.png', 'image/png', PNG_1X1)
        const payload = { title: `${marker} ${visibility} ${status}${inOrg ? ' org' : ''}`, text: 'Matrix post', visibility, status, tags: [marker], attachments: [fileId, imageId], fields: { rating: 3, note: 'for editors' }, ...(inOrg ? { org_id: org.id } : {}), ...(status === 'scheduled' ? { publish_at: TOMORROW } : {}) }
        const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: people.author.headers, payload })
        expect(response.statusCode, JSON.stringify(payload)).toBe(201)
        const created = json<{ id: number; title: string; slug: string; author_id: number; visibility: Visibility; status: PostStatus; org_id: number | null }>(response)
        posts.push({ id: created.id, title: created.title, slug: created.slug, authorId: created.author_id, visibility: created.visibility, status: created.status, orgId: created.org_id, fileId, imageId })
        const serverField = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${created.id}`, headers: people.superuser.headers, payload: { fields: { crm_id: 'c-1' } } })
        expect(serverField.statusCode, serverField.body).toBe(200)
      }
    }
  }
  // The last post every stream hears: once it arrived everywhere, nothing before it is on its way.
  const last = json<{ id: number }>(await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: people.owner.headers, payload: { title: 'Last', text: 'Heard by all' } }))
  await waitFor(() => [...streams.values()].every((stream) => stream.events().some((frame) => frame.event === 'post.created' && (JSON.parse(frame.data ?? '{}') as { data: { id: number } }).data.id === last.id)))
  overviewPosts = json<{ posts: number }>(await t.app.inject({ url: `${V2}/admin/overview`, headers: people.superuser.headers })).posts
})

afterAll(async () => {
  for (const stream of streams.values()) stream.close()
  await t.close()
})

describe('who reads a post: the matrix', () => {
  it('has one post for each visibility and status, with and without an organization', () => {
    expect(posts.map(label)).toEqual(expect.arrayContaining(['public/draft', 'unlisted/published/org', 'org/draft/org', 'private/published']))
    expect(posts).toHaveLength(21)
  })

  it.each(ACTORS)('get, permissions and the address by slug, as %s: 404 unless the policy lets them read, and its answer otherwise', async (actor) => {
    const reader = readerOf(actor)
    const wrong: string[] = []
    for (const post of posts) {
      const got = await call(actor, `${V2}/posts/${post.id}`)
      const v1 = await call(actor, `${V1}/posts/${post.id}`)
      const permissions = await call(actor, `${V2}/posts/${post.id}/permissions`)
      // Its address: its organization's slug, or its author's username.
      const bySlug = await call(actor, `${V2}/posts/by-slug/${post.orgId === null ? people.author.user.username : org.slug}/${post.slug}`)
      const readable = mayRead(reader, post)
      if (readable && json<{ id: number }>(bySlug).id !== post.id) wrong.push(`by slug ${label(post)}: another post`)
      // Its revisions: for those who may edit it; 403 for one who may only read it, 404 for anyone else.
      const revisions = await call(actor, `${V2}/posts/${post.id}/revisions`)
      const revisionsExpected = actor === 'anonymous' ? 401 : !readable ? 404 : permissionsOf(reader, post).edit ? 200 : 403
      if (revisions.statusCode !== revisionsExpected) wrong.push(`revisions ${label(post)}: ${revisions.statusCode}, expected ${revisionsExpected}`)
      for (const [path, response] of [['get', got], ['v1 get', v1], ['permissions', permissions], ['by slug', bySlug]] as const) {
        const expected = readable ? 200 : 404
        if (response.statusCode !== expected) wrong.push(`${path} ${label(post)}: ${response.statusCode}, expected ${expected}`)
        if (!readable && json<{ code?: string }>(response).code !== 'post_not_found') wrong.push(`${path} ${label(post)}: not post_not_found`)
      }
      // Its files follow it: the bytes and a variant, 404 file_not_found where the post is 404.
      const file = await call(actor, `${V2}/files/${post.fileId}`)
      const variant = await call(actor, `${V2}/files/${post.imageId}/variants/thumb`)
      for (const [path, response] of [['file', file], ['variant', variant]] as const) {
        const expected = readable ? 200 : 404
        if (response.statusCode !== expected) wrong.push(`${path} of ${label(post)}: ${response.statusCode}, expected ${expected}`)
        if (!readable && json<{ code?: string }>(response).code !== 'file_not_found') wrong.push(`${path} of ${label(post)}: not file_not_found`)
      }
      if (readable) {
        expect(file.body, `${label(post)} as ${actor}`).toBe(`${post.visibility} ${post.status}`)
        expect(json<{ attachments: { id: number }[] }>(got).attachments.map((attached) => attached.id)).toEqual([post.fileId, post.imageId])
        expect(json(permissions), `${label(post)} as ${actor}`).toEqual(permissionsOf(reader, post))
        expect(json<{ visibility: string }>(got).visibility).toBe(post.visibility)
        expect(json<Record<string, unknown>>(v1)).not.toHaveProperty('visibility')
        expect(json<Record<string, unknown>>(v1)).not.toHaveProperty('fields')
        for (const [path, response] of [['get', got], ['by slug', bySlug]] as const) {
          const fields = json<{ fields: unknown }>(response).fields
          if (JSON.stringify(fields) !== JSON.stringify(fieldsFor(reader, post))) wrong.push(`${path} ${label(post)}: fields ${JSON.stringify(fields)}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it.each(ACTORS)('lists, search, cursor pages and counts, as %s: exactly the posts the policy lists to them', async (actor) => {
    const reader = readerOf(actor)
    const listed = expectedIds((post) => mayList(reader, post))
    // Only the matrix's posts and the last one exist: the unnarrowed list and its count are theirs.
    const everything = await allPages(actor, `${V2}/posts`)
    expect(ours(everything.ids), 'list').toEqual(listed)
    expect(everything.total, 'count').toBe(everything.ids.length)
    // Sorted, and walked by its own cursors: the same posts.
    const sorted = await allPages(actor, `${V2}/posts?sort=-reaction_count,title`)
    expect(ours([...sorted.ids].sort((a, b) => a - b)), 'sorted list').toEqual(listed)
    expect(sorted.total, 'sorted count').toBe(everything.total)
    // By a private field where the caller may name one (signed in): a sort narrows nothing either.
    const byField = await allPages(actor, `${V2}/posts?sort=${reader.userId === null && !reader.isSuperuser ? '' : '-fields.note,'}fields.rating`)
    expect(ours([...byField.ids].sort((a, b) => a - b)), 'sorted by fields').toEqual(listed)
    expect(byField.total, 'sorted by fields count').toBe(everything.total)
    const searched = await allPages(actor, `${V2}/posts?search=${marker}`)
    expect(searched.ids.sort((a, b) => a - b), 'search').toEqual(listed)
    expect(searched.total, 'search count').toBe(listed.length)
    // Ranked search, in rank order by its own cursors, and narrowed as a list is.
    const ranked = await allPages(actor, `${V2}/search?q=${marker}`)
    expect(ranked.ids.sort((a, b) => a - b), 'ranked search').toEqual(listed)
    expect(ranked.total, 'ranked search count').toBe(listed.length)
    // By tag, and the tag's count: the same posts.
    const tagged = await allPages(actor, `${V2}/posts?tag=${marker}`)
    expect(tagged.ids.sort((a, b) => a - b), 'tag').toEqual(listed)
    expect(tagged.total, 'tag count').toBe(listed.length)
    const popular = json<{ data: { tag: string; count: number }[] }>(await call(actor, `${V2}/tags?limit=100`)).data
    expect(popular.find((row) => row.tag === marker)?.count ?? 0, 'GET /tags').toBe(listed.length)
    const rankedDrafts = await allPages(actor, `${V2}/search?q=${marker}%20matrix&status=draft`)
    expect(rankedDrafts.ids.sort((a, b) => a - b), 'ranked search of drafts').toEqual(expectedIds((post) => mayList(reader, post) && post.status === 'draft'))
    expect(rankedDrafts.total, 'ranked search of drafts count').toBe(rankedDrafts.ids.length)
    const byAuthor = await allPages(actor, `${V2}/posts?author_id=${people.author.user.id}`)
    expect(byAuthor.ids.sort((a, b) => a - b), "the author's posts").toEqual(listed)
    expect(byAuthor.total).toBe(listed.length)
    const v1 = json<{ id: number }[]>(await call(actor, `${V1}/posts/?limit=100`)).map((post) => post.id)
    expect(ours(v1), 'v1 list').toEqual(listed)
    const v1Search = json<{ id: number }[]>(await call(actor, `${V1}/posts/?limit=100&search=${marker}&author_id=${people.author.user.id}`)).map((post) => post.id)
    expect(ours(v1Search), 'v1 search').toEqual(listed)
    for (const visibility of VISIBILITIES) {
      for (const status of POST_STATUSES) {
        const narrowed = await allPages(actor, `${V2}/posts?visibility=${visibility}&status=${status}`)
        expect(ours(narrowed.ids), `${visibility}/${status}`).toEqual(expectedIds((post) => mayList(reader, post) && post.visibility === visibility && post.status === status))
      }
    }
  })

  it.each(ACTORS)('expand=author,org and custom fields on the get, the address and the lists, as %s: the author as users are read, the organization only to its members and superusers, the fields of their level', async (actor) => {
    const reader = readerOf(actor)
    const seesOrg = reader.isSuperuser || reader.orgRoles.has(org.id)
    const seesEmail = reader.isSuperuser || reader.userId === people.author.user.id
    const wrong: string[] = []
    const authorFields = AUTHOR_FIELDS[reader.isSuperuser ? 'server' : reader.userId === people.author.user.id ? 'private' : 'public']
    const orgRole = reader.orgRoles.get(org.id)
    const orgFields = ORG_FIELDS[reader.isSuperuser ? 'server' : orgRole === 'admin' || orgRole === 'owner' ? 'private' : 'public']
    const check = (where: string, read: { id: number; org_id: number | null; fields: unknown; expand?: { author?: { id: number; email?: string; fields?: unknown } | null; org?: { id: number; role: string | null; fields?: unknown } | null } }) => {
      const post = posts.find((one) => one.id === read.id)
      if (!post) return
      if (JSON.stringify(read.fields) !== JSON.stringify(fieldsFor(reader, post))) wrong.push(`${where} ${label(post)}: fields ${JSON.stringify(read.fields)}`)
      const { author, org: expandedOrg } = read.expand ?? {}
      if (author?.id !== people.author.user.id) wrong.push(`${where} ${label(post)}: author ${JSON.stringify(author)}`)
      if ((author?.email !== undefined) !== seesEmail) wrong.push(`${where} ${label(post)}: email ${author?.email === undefined ? 'hidden' : 'shown'}`)
      const orgExpected = post.orgId !== null && seesOrg
      if ((expandedOrg !== null && expandedOrg !== undefined) !== orgExpected) wrong.push(`${where} ${label(post)}: org ${JSON.stringify(expandedOrg)}`)
      if (expandedOrg && expandedOrg.role !== (reader.orgRoles.get(org.id) ?? null)) wrong.push(`${where} ${label(post)}: role ${expandedOrg.role}`)
      if (author && JSON.stringify(author.fields) !== JSON.stringify(authorFields)) wrong.push(`${where} ${label(post)}: author's fields ${JSON.stringify(author.fields)}`)
      if (expandedOrg && JSON.stringify(expandedOrg.fields) !== JSON.stringify(orgFields)) wrong.push(`${where} ${label(post)}: organization's fields ${JSON.stringify(expandedOrg.fields)}`)
    }
    for (const post of posts.filter((one) => mayRead(reader, one))) {
      check('get', json(await call(actor, `${V2}/posts/${post.id}?expand=author,org`)))
      check('by slug', json(await call(actor, `${V2}/posts/by-slug/${post.orgId === null ? people.author.user.username : org.slug}/${post.slug}?expand=org,author`)))
    }
    const lists = [`${V2}/posts?limit=100&expand=author,org`, `${V2}/orgs/${org.slug}/posts?limit=100&expand=author,org`, `${V2}/users/me/posts?limit=100&expand=author,org`]
    for (const url of lists) {
      const response = await call(actor, url)
      if (response.statusCode === 200) for (const read of json<{ data: Parameters<typeof check>[1][] }>(response).data) check(url, read)
    }
    expect(wrong).toEqual([])
    // Asked for nothing, a post has no `expand`; asked for a relation it does not know, 422.
    expect(json<Record<string, unknown>>(await call(actor, `${V2}/posts?limit=1`)).data).not.toContainEqual(expect.objectContaining({ expand: expect.anything() }))
    expect((await call(actor, `${V2}/posts?expand=author,password_hash`)).statusCode).toBe(422)
  })

  it.each(ACTORS)('filters on custom fields, as %s: a public field within what they may list, a private one only where they read it, refused where they read it nowhere', async (actor) => {
    const reader = readerOf(actor)
    const filtered = async (filter: string) => {
      const response = await call(actor, `${V2}/posts?limit=100&filter=${encodeURIComponent(filter)}`)
      return response.statusCode === 200 ? { ids: ours(json<{ data: { id: number }[] }>(response).data.map((post) => post.id)) } : { status: response.statusCode, code: json<{ code: string }>(response).code }
    }
    expect(await filtered('fields.rating = 3')).toEqual({ ids: expectedIds((post) => mayList(reader, post)) })
    const privately = expectedIds((post) => mayList(reader, post) && fieldLevelOf(reader, post) !== 'public')
    expect(await filtered('fields.note = "for editors"')).toEqual(actor === 'anonymous' ? { status: 400, code: 'invalid_filter' } : { ids: privately })
    expect(await filtered('fields.crm_id = "c-1"')).toEqual(actor === 'superuser' ? { ids: expectedIds((post) => mayList(reader, post)) } : { status: 400, code: 'invalid_filter' })
  })

  it.each(ACTORS)("the caller's own posts and the organization's, as %s", async (actor) => {
    const reader = readerOf(actor)
    const own = await call(actor, `${V2}/users/me/posts?limit=100`)
    if (actor === 'anonymous') expect(own.statusCode).toBe(401)
    else expect(ours(json<{ data: { id: number }[] }>(own).data.map((post) => post.id))).toEqual(expectedIds((post) => mayList(reader, post) && post.authorId === reader.userId))
    const ofOrg = await call(actor, `${V2}/orgs/${org.slug}/posts?limit=100`)
    const member = actor === 'superuser' || reader.orgRoles.has(org.id)
    if (!member) {
      expect(ofOrg.statusCode).toBe(actor === 'anonymous' ? 401 : 404)
      return
    }
    const page = json<{ data: { id: number }[]; total_count: number }>(ofOrg)
    const expected = expectedIds((post) => mayList(reader, post) && post.orgId === org.id)
    expect(page.data.map((post) => post.id).sort((a, b) => a - b)).toEqual(expected)
    expect(page.total_count).toBe(expected.length)
  })

  it.each(ACTORS.filter((actor) => actor !== 'read-only API key'))('the realtime stream, as %s: a post.created event for each post the policy lists to them, carrying its public fields only', (actor) => {
    const reader = readerOf(actor)
    const frames = streams.get(actor)!.events().map((frame) => ({ event: frame.event, data: (JSON.parse(frame.data ?? '{}') as { data: { id: number; fields?: unknown } }).data }))
    const heard = frames.filter((frame) => frame.event === 'post.created').map((frame) => frame.data.id)
    expect(ours(heard)).toEqual(expectedIds((post) => mayList(reader, post)))
    const ofMatrix = frames.filter((frame) => (frame.event === 'post.created' || frame.event === 'post.updated') && posts.some((post) => post.id === frame.data.id))
    expect(ofMatrix.length).toBeGreaterThan(0)
    for (const frame of ofMatrix) expect(frame.data.fields, `${frame.event} ${frame.data.id}`).toEqual(FIELDS_BY_LEVEL.public)
  })

  it("counts every live post in the admin overview, as a superuser's list does", async () => {
    expect(overviewPosts).toBe((await allPages('superuser', `${V2}/posts`)).total)
  })

  it("feeds, to anyone: by tag, by author and by organization, exactly the posts the policy lists to anonymous", async () => {
    const titlesOf = async (path: string) => {
      const response = await call('anonymous', `${V2}/feeds/${path}/posts.json`)
      expect(response.statusCode, path).toBe(200)
      return (parseJsonFeed(response.body).items ?? []).map((item) => item.title ?? '').filter((title) => title.startsWith(marker)).sort()
    }
    const listed = (only: (post: MatrixPost) => boolean) => posts.filter((post) => only(post) && mayList(ANONYMOUS, post)).map((post) => post.title).sort()
    expect(listed(() => true).length).toBeGreaterThan(0)
    expect(await titlesOf(`tags/${marker}`)).toEqual(listed(() => true))
    expect(await titlesOf(`users/${people.author.user.username}`)).toEqual(listed(() => true))
    expect(await titlesOf(`orgs/${org.slug}`)).toEqual(listed((post) => post.orgId === org.id))
  })

  it('walks every route that answers with posts', async () => {
    const answersWithPosts = (response: unknown) => {
      const text = JSON.stringify(response ?? {})
      return text.includes('"author_id"') && text.includes('"media_url"')
    }
    const answering: string[] = []
    for (const prefix of [V1, V2]) {
      const document = json<{ paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }>(await t.app.inject({ url: `${prefix}/openapi.json` }))
      for (const [path, operations] of Object.entries(document.paths)) {
        if (answersWithPosts(operations.get?.responses?.['200'])) answering.push(`GET ${path}`)
      }
    }
    expect(answering.sort()).toEqual(Object.values(PATHS).filter((path) => path !== PATHS.permissions).sort())
  })

  it("walks every route that answers with a file's bytes (but a data export's, which only its owner's link reads)", async () => {
    const document = json<{ paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }>(await t.app.inject({ url: `${V2}/openapi.json` }))
    const answering = Object.entries(document.paths)
      .filter(([, operations]) => JSON.stringify(operations.get?.responses?.['200'] ?? {}).includes('"binary"'))
      .map(([path]) => `GET ${path}`)
      .filter((path) => path !== DATA_EXPORT_DOWNLOAD)
    expect(answering.sort()).toEqual(Object.values(FILE_PATHS).sort())
  })
})

describe('who reads a post on a resumed stream, after the posts changed', () => {
  let firstEventId: number
  let withdrawn: MatrixPost
  let deleted: MatrixPost
  beforeAll(async () => {
    // Where the matrix's events start, as every stream numbered them.
    const ids = streams
      .get('superuser')!
      .events()
      .filter((frame) => frame.event === 'post.created' && posts.some((post) => post.id === (JSON.parse(frame.data ?? '{}') as { data: { id: number } }).data.id))
      .map((frame) => Number(frame.id))
    firstEventId = Math.min(...ids)
    // One public post is made private, and an organization's is deleted: the stored events still carry them as written.
    withdrawn = posts.find((post) => post.visibility === 'public' && post.status === 'published' && post.orgId === null)!
    deleted = posts.find((post) => post.visibility === 'org' && post.status === 'published')!
    const changed = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${withdrawn.id}`, headers: people.author.headers, payload: { visibility: 'private' } })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${deleted.id}`, headers: people.author.headers })).statusCode).toBe(200)
  })

  it.each(ACTORS.filter((actor) => actor !== 'read-only API key'))('replays, as %s, only the events of the posts the policy lists to them now, and a deletion by its id alone', async (actor) => {
    const reader = readerOf(actor)
    const now = posts.filter((post) => post.id !== deleted.id).map((post) => (post.id === withdrawn.id ? { ...post, visibility: 'private' as const } : post))
    const stream = await openStream(`${base}${V2}/events/stream`, { ...headersOf(actor), 'last-event-id': String(firstEventId - 1) })
    try {
      expect(stream.status).toBe(200)
      // A post everyone hears, written once the stream is open: it comes after the whole replay.
      const marker = json<{ id: number }>(await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: people.owner.headers, payload: { title: 'After the replay', text: 'Heard by all' } }))
      const heard = (id: number) => stream.events().some((frame) => frame.event === 'post.created' && (JSON.parse(frame.data ?? '{}') as { data: { id: number } }).data.id === id)
      await waitFor(() => heard(marker.id))
      const replayed = stream.events().map((frame) => ({ type: frame.event, ...(JSON.parse(frame.data ?? '{}') as { data: { id: number; text?: string } }) }))
      const created = replayed.filter((event) => event.type === 'post.created').map((event) => event.data.id)
      expect(ours(created)).toEqual(now.filter((post) => mayList(reader, post)).map((post) => post.id).sort((a, b) => a - b))
      // Nothing of the post made private reaches anyone it is now closed to, nor its deleted neighbour's text.
      if (!mayList(reader, { ...withdrawn, visibility: 'private' })) expect(replayed.filter((event) => event.data.id === withdrawn.id)).toEqual([])
      const deletions = replayed.filter((event) => event.type === 'post.deleted')
      expect(deletions.map((event) => event.data)).toEqual(mayList(reader, deleted) ? [{ id: deleted.id }] : [])
    } finally {
      stream.close()
    }
  })
})

describe('who sees and restores a trashed post', () => {
  let trashed: MatrixPost[]
  beforeAll(async () => {
    // Every post of the matrix goes to its author's trash (one is there already, from the replay above).
    for (const post of posts) await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${post.id}`, headers: people.author.headers })
    trashed = posts
  })

  it.each(ACTORS)('as %s: only its author lists it in a trash, nobody reads it anywhere, and only its author and a superuser bring it back', async (actor) => {
    const wrong: string[] = []
    const trash = await call(actor, `${V2}/users/me/trash?limit=100`)
    const expectedTrash = actor === 'anonymous' ? 401 : 200
    if (trash.statusCode !== expectedTrash) wrong.push(`trash: ${trash.statusCode}, expected ${expectedTrash}`)
    if (trash.statusCode === 200) {
      const listed = ours(json<{ data: { id: number }[] }>(trash).data.map((post) => post.id))
      expect(listed, `trash as ${actor}`).toEqual(actor === 'author' ? trashed.map((post) => post.id).sort((a, b) => a - b) : [])
    }
    if (actor !== 'anonymous') expect(ours((await allPages(actor, `${V2}/posts`)).ids), `list as ${actor}`).toEqual([])
    for (const post of trashed) {
      const got = await call(actor, `${V2}/posts/${post.id}`)
      if (got.statusCode !== 404) wrong.push(`get ${label(post)}: ${got.statusCode}, expected 404`)
      const restore = await t.app.inject({ method: 'POST', url: `${V2}/posts/${post.id}/restore`, headers: headersOf(actor) })
      // A read-only key may not write (403 before the post is looked at); anyone but its author and a superuser is told nothing.
      const expected = actor === 'anonymous' ? 401 : actor === 'read-only API key' ? 403 : actor === 'author' || actor === 'superuser' ? 200 : 404
      if (restore.statusCode !== expected) wrong.push(`restore ${label(post)}: ${restore.statusCode}, expected ${expected}`)
      if (restore.statusCode === 200) {
        const again = await t.app.inject({ method: 'DELETE', url: `${V2}/posts/${post.id}`, headers: people.author.headers })
        expect(again.statusCode, again.body).toBe(200)
      }
    }
    expect(wrong, `as ${actor}`).toEqual([])
  })
})
