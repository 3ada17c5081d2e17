// A property of the post policy on both databases: for random posts (any author, visibility,
// status and organization, some soft-deleted) and random memberships, no caller (anonymous,
// any user, a superuser) sees in any list, search, cursor page or count a post the policy does
// not list to them, nor misses one it does. The rows are written straight to the database, so
// the property holds for whatever data is there, not only what the API lets in.
import { randomUUID } from 'node:crypto'

import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import type { MemberRole, PostStatus, Reader, Visibility } from './post-policy.js'
import { ANONYMOUS, mayList, POST_STATUSES, VISIBILITIES } from './post-policy.js'

const USERS = 4
const ORGS = 2

let t: TestApp
let users: LoggedIn[]
let superuser: LoggedIn
let orgIds: number[]

interface RandomPost {
  author: number
  visibility: Visibility
  status: PostStatus
  org: number | null
  deleted: boolean
}

const randomPost = fc.record({
  author: fc.integer({ min: 0, max: USERS - 1 }),
  visibility: fc.constantFrom(...VISIBILITIES),
  status: fc.constantFrom(...POST_STATUSES),
  org: fc.option(fc.integer({ min: 0, max: ORGS - 1 }), { nil: null }),
  deleted: fc.boolean(),
})
const randomRoles = fc.array(fc.array(fc.constantFrom<MemberRole | null>(null, 'member', 'admin', 'owner'), { minLength: ORGS, maxLength: ORGS }), { minLength: USERS, maxLength: USERS })

beforeAll(async () => {
  t = await createTestApp()
  users = []
  for (let index = 0; index < USERS; index++) users.push(await seedAndLogin(t.app))
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  orgIds = []
  for (let index = 0; index < ORGS; index++) {
    orgIds.push(((await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: superuser.headers, payload: { name: `Property ${index}` } })).json() as { id: number }).id)
  }
})
afterAll(() => t.close())

async function writeWorld(roles: (MemberRole | null)[][], posts: RandomPost[]): Promise<{ id: number; post: RandomPost }[]> {
  await t.db.deleteFrom('posts').execute()
  await t.db.deleteFrom('org_memberships').where('org_id', 'in', orgIds).execute()
  const now = new Date().toISOString()
  const memberships = roles.flatMap((row, user) => row.flatMap((role, org) => (role === null ? [] : [{ org_id: orgIds[org]!, user_id: users[user]!.user.id, role, created_at: now }])))
  if (memberships.length > 0) await t.db.insertInto('org_memberships').values(memberships).execute()
  const written: { id: number; post: RandomPost }[] = []
  for (const post of posts) {
    const row = await t.db
      .insertInto('posts')
      .values({
        author_id: users[post.author]!.user.id,
        title: 'Random post',
        slug: `random-${randomUUID()}`,
        slug_scope: 'tests',
        text: 'fast-check',
        media_url: null,
        visibility: post.visibility,
        status: post.status,
        org_id: post.org === null ? null : orgIds[post.org]!,
        published_at: post.status === 'published' ? now : null,
        is_deleted: post.deleted ? 1 : 0,
        deleted_at: post.deleted ? now : null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    written.push({ id: row.id, post })
  }
  return written
}

function readerOf(caller: number | 'anonymous' | 'superuser', roles: (MemberRole | null)[][]): Reader {
  if (caller === 'anonymous') return ANONYMOUS
  if (caller === 'superuser') return { userId: superuser.user.id, isSuperuser: true, orgRoles: new Map(), mayWrite: true }
  const orgRoles = new Map<number, MemberRole>()
  roles[caller]!.forEach((role, org) => role !== null && orgRoles.set(orgIds[org]!, role))
  return { userId: users[caller]!.user.id, isSuperuser: false, orgRoles, mayWrite: true }
}

async function pages(headers: Record<string, string>, url: string): Promise<{ ids: number[]; total: number }> {
  const ids: number[] = []
  let total = -1
  let cursor: string | null = null
  do {
    const response = await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}limit=4${cursor ? `&cursor=${cursor}` : ''}`, headers })
    expect(response.statusCode).toBe(200)
    const page = response.json() as { data: { id: number }[]; total_count: number; next_cursor: string | null }
    ids.push(...page.data.map((post) => post.id))
    total = page.total_count
    cursor = page.next_cursor
  } while (cursor !== null)
  return { ids: ids.sort((a, b) => a - b), total }
}

describe('the post policy, as a property', () => {
  it('never lists or counts a post the policy denies, and never hides one it allows', async () => {
    await fc.assert(
      fc.asyncProperty(randomRoles, fc.array(randomPost, { maxLength: 12 }), fc.integer({ min: 0, max: USERS - 1 }), async (roles, posts, authorToFilter) => {
        const written = await writeWorld(roles, posts)
        const callers: (number | 'anonymous' | 'superuser')[] = ['anonymous', 'superuser', ...users.map((_, index) => index)]
        for (const caller of callers) {
          const reader = readerOf(caller, roles)
          const headers = caller === 'anonymous' ? {} : caller === 'superuser' ? superuser.headers : users[caller]!.headers
          const listed = (keep: (post: RandomPost) => boolean = () => true) =>
            written.filter(({ post }) => !post.deleted && keep(post) && mayList(reader, { authorId: users[post.author]!.user.id, visibility: post.visibility, status: post.status, orgId: post.org === null ? null : orgIds[post.org]! })).map(({ id }) => id).sort((a, b) => a - b)
          const all = await pages(headers, `${V2}/posts`)
          expect(all.ids).toEqual(listed())
          expect(all.total).toBe(listed().length)
          const searched = await pages(headers, `${V2}/posts?search=random`)
          expect(searched.total).toBe(listed().length)
          const byAuthor = await pages(headers, `${V2}/posts?author_id=${users[authorToFilter]!.user.id}`)
          expect(byAuthor.ids).toEqual(listed((post) => post.author === authorToFilter))
          expect(byAuthor.total).toBe(byAuthor.ids.length)
          const drafts = await pages(headers, `${V2}/posts?status=draft`)
          expect(drafts.ids).toEqual(listed((post) => post.status === 'draft'))
          if (typeof caller === 'number' && roles[caller]![0] !== null) {
            const ofOrg = await pages(headers, `${V2}/orgs/${orgIds[0]}/posts`)
            expect(ofOrg.ids).toEqual(listed((post) => post.org === 0))
            expect(ofOrg.total).toBe(ofOrg.ids.length)
          }
        }
      }),
      { numRuns: 25 },
    )
  }, 300_000)
})
