// The organizations' role rules on a fake of their memberships, with no server: who changes whose
// role and who removes whom, that the owner role is the owners' to give and take, that an
// organization keeps an owner, and that a member may always leave. The HTTP contract (every route,
// both databases, concurrent demotions) is orgs.v2.test.ts's; a unit test: it runs once.
import { describe, expect, it } from 'vitest'

import type { UnitOfWork } from '../../db/unit-of-work.js'
import { DomainError } from '../../shared/errors.js'
import type { CollectionFields } from '../content-fields/index.js'
import { NO_FIELDS } from '../content-fields/index.js'
import type { MailService } from '../mail/index.js'
import type { OneTimeSecrets } from '../one-time-secrets/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'
import { fakeOrgsRepository } from './fake-orgs.repository.js'
import type { OrgRole, OrgView } from './org.js'
import type { OrgChangeLog } from './org-change-log.js'
import { OrgService } from './orgs.service.js'

const ORG = 10
const [OWNER, SECOND_OWNER, ADMIN, MEMBER, STRANGER, SUPERUSER] = [1, 2, 3, 4, 5, 6]
const client = { ip: '203.0.113.7', userAgent: null }

function orgs(roles: Record<number, OrgRole>) {
  const members = new Map([[ORG, new Map(Object.entries(roles).map(([id, role]) => [Number(id), role as string]))]])
  const logged: string[] = []
  const service = new OrgService({
    repository: fakeOrgsRepository(members),
    unitOfWork: { run: (work: (unit: object) => Promise<unknown>) => work({}) } as unknown as UnitOfWork,
    secrets: { kind: () => ({}) } as unknown as OneTimeSecrets,
    users: {} as UserService,
    secondFactors: { hasSecondFactor: async () => true } as never,
    mail: {} as MailService,
    securityEvents: { record: async (type: string) => void logged.push(type) } as unknown as SecurityEventService,
    rateLimits: {} as RateLimitService,
    changes: { membershipChanged: async () => undefined } as unknown as OrgChangeLog,
    fields: {} as CollectionFields,
    options: { perUser: 10, invitationDays: 7, invitationLink: (token) => token },
  })
  const roleOf = (userId: number) => members.get(ORG)?.get(userId)
  return { service, roleOf, logged }
}

const actor = (id: number) => ({ id, isSuperuser: id === SUPERUSER })
const view = (role: OrgRole | null): OrgView => ({ id: ORG, name: 'Acme', slug: 'acme', requireMfa: false, createdAt: '', updatedAt: '', storedFields: NO_FIELDS, fields: NO_FIELDS, role })
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'done', (error: unknown) => (error instanceof DomainError ? error.code : String(error)))
const team = { [OWNER]: 'owner', [ADMIN]: 'admin', [MEMBER]: 'member' } as const

describe("an organization's roles", () => {
  it("are changed by admins, but the owner role is the owners' to give and take", async () => {
    const { service, roleOf } = orgs(team)
    expect(await codeOf(service.changeRole(actor(MEMBER), view('member'), ADMIN, 'member', client))).toBe('org_role_required')
    expect(await codeOf(service.changeRole(actor(ADMIN), view('admin'), MEMBER, 'admin', client))).toBe('done')
    expect(roleOf(MEMBER)).toBe('admin')
    expect(await codeOf(service.changeRole(actor(ADMIN), view('admin'), MEMBER, 'owner', client))).toBe('org_role_required')
    expect(await codeOf(service.changeRole(actor(ADMIN), view('admin'), OWNER, 'admin', client))).toBe('org_role_required')
    expect(await codeOf(service.changeRole(actor(OWNER), view('owner'), MEMBER, 'owner', client))).toBe('done')
    expect(roleOf(MEMBER)).toBe('owner')
  })

  it('keep an owner: the last one is neither demoted nor removed, nor leaves', async () => {
    const { service, roleOf } = orgs(team)
    expect(await codeOf(service.changeRole(actor(OWNER), view('owner'), OWNER, 'admin', client))).toBe('last_owner')
    expect(await codeOf(service.removeMember(actor(OWNER), view('owner'), OWNER, client))).toBe('last_owner')
    expect(roleOf(OWNER)).toBe('owner')
    const two = orgs({ ...team, [SECOND_OWNER]: 'owner' })
    expect(await codeOf(two.service.removeMember(actor(OWNER), view('owner'), OWNER, client))).toBe('done')
    expect(two.roleOf(OWNER)).toBeUndefined()
  })

  it('let admins remove members but not owners, and any member leave', async () => {
    const { service, roleOf, logged } = orgs({ ...team, [SECOND_OWNER]: 'owner' })
    expect(await codeOf(service.removeMember(actor(ADMIN), view('admin'), SECOND_OWNER, client))).toBe('org_role_required')
    expect(await codeOf(service.removeMember(actor(MEMBER), view('member'), ADMIN, client))).toBe('org_role_required')
    expect(await codeOf(service.removeMember(actor(MEMBER), view('member'), MEMBER, client))).toBe('done')
    expect(await codeOf(service.removeMember(actor(ADMIN), view('admin'), MEMBER, client))).toBe('member_not_found')
    expect(roleOf(MEMBER)).toBeUndefined()
    expect(logged).toEqual(['member_left'])
  })

  it('refuse a caller who is not (or no longer) a member as if the organization were not there; a superuser acts as an owner', async () => {
    const { service, roleOf } = orgs(team)
    expect(await codeOf(service.changeRole(actor(STRANGER), view('admin'), MEMBER, 'admin', client))).toBe('org_not_found')
    expect(await codeOf(service.changeRole(actor(SUPERUSER), view(null), OWNER, 'member', client))).toBe('last_owner')
    expect(await codeOf(service.changeRole(actor(SUPERUSER), view(null), MEMBER, 'owner', client))).toBe('done')
    expect(roleOf(MEMBER)).toBe('owner')
  })
})
