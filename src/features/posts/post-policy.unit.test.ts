// The post policy as docs/api.md states it ("Who reads a post"), caller by caller, with no server:
// who reads, who finds the post in lists, who edits. The property test (post-policy.property.test.ts)
// holds every database path to these answers; a unit test: it runs once.
import { describe, expect, it } from 'vitest'

import type { MemberRole, PostFacts, PostStatus, Reader, Visibility } from './post-policy.js'
import { ANONYMOUS, mayEdit, mayList, mayRead, permissionsOf } from './post-policy.js'

const AUTHOR = 1
const ORG = 10
const reader = (userId: number, roles: [number, MemberRole][] = [], extra: Partial<Reader> = {}): Reader => ({ userId, isSuperuser: false, orgRoles: new Map(roles), mayWrite: true, ...extra })

const CALLERS = {
  anonymous: ANONYMOUS,
  stranger: reader(2),
  author: reader(AUTHOR),
  member: reader(3, [[ORG, 'member']]),
  admin: reader(4, [[ORG, 'admin']]),
  owner: reader(5, [[ORG, 'owner']]),
  otherOrgAdmin: reader(6, [[ORG + 1, 'admin']]),
  superuser: reader(7, [], { isSuperuser: true }),
} as const
type Caller = keyof typeof CALLERS

const post = (visibility: Visibility, status: PostStatus, orgId: number | null = ORG): PostFacts => ({ authorId: AUTHOR, visibility, status, orgId })
const who = (rule: (caller: Reader, facts: PostFacts) => boolean, facts: PostFacts) =>
  (Object.keys(CALLERS) as Caller[]).filter((caller) => rule(CALLERS[caller], facts)).sort()

describe('the post policy', () => {
  it.each([
    // visibility, status: who reads it, and who finds it in lists, search, counts and the stream
    ['public', 'published', ['admin', 'anonymous', 'author', 'member', 'otherOrgAdmin', 'owner', 'stranger', 'superuser'], ['admin', 'anonymous', 'author', 'member', 'otherOrgAdmin', 'owner', 'stranger', 'superuser']],
    ['unlisted', 'published', ['admin', 'anonymous', 'author', 'member', 'otherOrgAdmin', 'owner', 'stranger', 'superuser'], ['author', 'superuser']],
    ['org', 'published', ['admin', 'author', 'member', 'owner', 'superuser'], ['admin', 'author', 'member', 'owner', 'superuser']],
    ['private', 'published', ['author', 'superuser'], ['author', 'superuser']],
    ['public', 'draft', ['admin', 'author', 'owner', 'superuser'], ['admin', 'author', 'owner', 'superuser']],
    ['org', 'draft', ['admin', 'author', 'owner', 'superuser'], ['admin', 'author', 'owner', 'superuser']],
    ['unlisted', 'draft', ['admin', 'author', 'owner', 'superuser'], ['author', 'superuser']],
    ['private', 'draft', ['author', 'superuser'], ['author', 'superuser']],
  ] as const)('an organization\'s %s %s post: read by %j, listed to %j', (visibility, status, readers, listers) => {
    expect(who(mayRead, post(visibility, status))).toEqual([...readers].sort())
    expect(who(mayList, post(visibility, status))).toEqual([...listers].sort())
  })

  it("opens a post outside any organization to no organization's members", () => {
    expect(who(mayRead, post('org', 'published', null))).toEqual(['author', 'superuser'])
    expect(who(mayRead, post('public', 'draft', null))).toEqual(['author', 'superuser'])
  })

  it("lets its author, its organization's admins and owners (unless it is private) and superusers edit, never a read-only key", () => {
    expect(who(mayEdit, post('org', 'published'))).toEqual(['admin', 'author', 'owner', 'superuser'])
    expect(who(mayEdit, post('private', 'draft'))).toEqual(['author', 'superuser'])
    expect(who(mayEdit, post('public', 'published', null))).toEqual(['author', 'superuser'])
    expect(mayEdit({ ...CALLERS.author, mayWrite: false }, post('public', 'published'))).toBe(false)
    expect(mayEdit({ ...CALLERS.superuser, mayWrite: false }, post('public', 'published'))).toBe(false)
  })

  it('answers delete and publish as edit, and read apart from them', () => {
    expect(permissionsOf(CALLERS.member, post('org', 'published'))).toEqual({ read: true, edit: false, delete: false, publish: false })
    expect(permissionsOf(CALLERS.owner, post('public', 'draft'))).toEqual({ read: true, edit: true, delete: true, publish: true })
    expect(permissionsOf(CALLERS.anonymous, post('unlisted', 'published'))).toEqual({ read: true, edit: false, delete: false, publish: false })
  })
})
