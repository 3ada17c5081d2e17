// Organizations: who may create them, who belongs with which role, and invitations by verified
// email. Every request on an organization resolves the caller's role from the database (no
// cache), so a role change or removal holds on the next request in every process. A member of no
// organization learns nothing of it (404, never 403).
import { uniqueViolation } from '../../db/errors.js'
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, invalidToken } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged, offsetOf } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { CollectionFields, FieldValues } from '../content-fields/index.js'
import { fieldsColumn, mergedFields, narrowsByIndex, readFilter, UNINDEXED_FILTER_MAX_ROWS } from '../content-fields/index.js'
import type { MailService } from '../mail/index.js'
import { duration, phrase } from '../mail/index.js'
import type { SecretKind } from '../one-time-secrets/index.js'
import type { OneTimeSecrets } from '../one-time-secrets/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { ClientInfo, SecurityEventService, SecurityEventType } from '../security-events/index.js'
import type { User, UserService } from '../users/index.js'
import type { Invitation, Org, OrgMember, OrgRole, OrgView, ReceivedInvitation } from './org.js'
import { isSlug, orgFieldLevel, roleAtLeast, slugOf, toInvitation, toOrg } from './org.js'
import type { OrgChangeLog } from './org-change-log.js'
import { ORG_FILTER, orgFilterTooBroad } from './org-filter.js'
import type { OrgsRepository } from './orgs.repository.js'

export const ORG_NOT_FOUND = 'Organization not found'
const orgNotFound = () => new DomainError('not_found', ORG_NOT_FOUND, { code: 'org_not_found' })
const roleRequired = (required: OrgRole) => new DomainError('forbidden', `Needs the ${required} role in this organization`, { code: 'org_role_required' })
const memberNotFound = () => new DomainError('not_found', 'Member not found', { code: 'member_not_found' })
const invitationNotFound = () => new DomainError('not_found', 'Invitation not found', { code: 'invitation_not_found' })
const lastOwner = () => new DomainError('conflict', 'The organization needs another owner first', { code: 'last_owner' })
const slugTaken = () => new DomainError('conflict', 'Slug already taken', { code: 'slug_taken' })
const mfaEnrolmentRequired = (detail: string) => new DomainError('forbidden', detail, { code: 'mfa_enrolment_required' })
const ORG_REQUIRES_MFA = 'This organization requires a second factor of its members: enrol at /users/me/mfa'

/** Whether a user has a second factor (the mfa feature answers). */
export interface SecondFactorCheck {
  /** Inside `unit` when the answer decides a change made in it. */
  isEnrolled(userId: number, unit?: Unit): Promise<boolean>
}

export interface OrgServiceOptions {
  /** ORGS_PER_USER. */
  perUser: number
  /** INVITATION_DAYS. */
  invitationDays: number
  /** The link an invitation mail carries, for its token. */
  invitationLink(token: string): string
}

export interface OrgChanges {
  name?: string
  slug?: string
  requireMfa?: boolean
  /** The custom fields it changes: null takes one away, the others stay. */
  fields?: FieldValues
}

export interface NewOrgInput {
  name: string
  slug?: string
  /** Its custom fields (declared in CONTENT_SCHEMA, checked by the route's schema). */
  fields?: FieldValues
}

/** What an invitation link's secret carries. */
interface InvitationSecret {
  orgId: number
}

const SLUG_ATTEMPTS = 20
/** The largest id an integer column holds. */
const MAX_ID = 2_147_483_647

/** What OrgService is built from. */
export interface OrgServiceDependencies {
  repository: OrgsRepository
  unitOfWork: UnitOfWork
  secrets: OneTimeSecrets
  users: UserService
  secondFactors: SecondFactorCheck
  mail: MailService
  securityEvents: SecurityEventService
  rateLimits: RateLimitService
  /** Change events for webhooks and streams, written in each change's unit. */
  changes: OrgChangeLog
  /** The custom fields declared for organizations (CONTENT_SCHEMA). */
  fields: CollectionFields
  options: OrgServiceOptions
}

export class OrgService {
  private readonly invitationSecrets: SecretKind<InvitationSecret>

  private readonly repository: OrgsRepository
  private readonly unitOfWork: UnitOfWork
  private readonly users: UserService
  private readonly secondFactors: SecondFactorCheck
  private readonly mail: MailService
  private readonly securityEvents: SecurityEventService
  private readonly rateLimits: RateLimitService
  /** Change events for webhooks and streams, written in each change's unit. */
  private readonly changes: OrgChangeLog
  private readonly options: OrgServiceOptions
  private readonly fields: CollectionFields

  constructor(dependencies: OrgServiceDependencies) {
    this.repository = dependencies.repository
    this.unitOfWork = dependencies.unitOfWork
    this.users = dependencies.users
    this.secondFactors = dependencies.secondFactors
    this.mail = dependencies.mail
    this.securityEvents = dependencies.securityEvents
    this.rateLimits = dependencies.rateLimits
    this.changes = dependencies.changes
    this.options = dependencies.options
    this.fields = dependencies.fields
    const secrets = dependencies.secrets
    this.invitationSecrets = secrets.kind<InvitationSecret>('org_invitation', { seconds: this.options.invitationDays * 86_400 })
  }

  /**
   * The organization named by `key` (its id, or its slug) as the actor may use it, when their role
   * is at least `required`: 404 for a non-member (superusers act as owners everywhere), 403 for a
   * lower role, and 403 `mfa_enrolment_required` for a member without a second factor when the
   * organization requires one (unless `mfaExempt`: leaving it; superusers answer to
   * REQUIRE_MFA_FOR_SUPERUSERS instead).
   */
  async access(actor: Actor, key: string, required: OrgRole, options: { mfaExempt?: boolean } = {}): Promise<OrgView> {
    // An id past the column's range names nothing (PostgreSQL would refuse to compare it).
    const lookup = /^\d{1,10}$/.test(key) ? (Number(key) <= MAX_ID ? { id: Number(key) } : undefined) : isSlug(key) ? { slug: key } : undefined
    const row = lookup && (await this.repository.findOrgWithRole(lookup, actor.id))
    if (!row) throw orgNotFound()
    const org = this.viewOf(toOrg(row), (row.role as OrgRole | null) ?? null, actor)
    if (org.role === null) {
      if (!actor.isSuperuser) throw orgNotFound()
      return org
    }
    if (!roleAtLeast(org.role, required) && !actor.isSuperuser) throw roleRequired(required)
    if (org.requireMfa && !options.mfaExempt && !actor.isSuperuser && !(await this.secondFactors.isEnrolled(actor.id))) throw mfaEnrolmentRequired(ORG_REQUIRES_MFA)
    return org
  }

  /** A new organization, its creator its owner. */
  async create(actor: Actor, input: NewOrgInput, client: ClientInfo): Promise<OrgView> {
    const name = input.name.trim()
    // The creator is its owner: they write up to the private fields (a superuser every level).
    this.fields.assertWritable(input.fields, orgFieldLevel('owner', actor))
    const fields = fieldsColumn(mergedFields({}, this.fields.normalized(input.fields)))
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const slug = input.slug ?? (await this.freeSlug(slugOf(name), attempt))
      if (input.slug !== undefined && (await this.repository.slugTaken(slug))) throw slugTaken()
      try {
        return await this.unitOfWork.run(async (unit) => {
          const repository = this.repository.in(unit)
          // Counted in the unit that creates, with the user's row held: creations at once cannot pass the limit.
          await repository.lockUser(actor.id)
          if ((await repository.countOwnedBy(actor.id)) >= this.options.perUser) {
            throw new DomainError('forbidden', `You own ${this.options.perUser} organizations, the most ORGS_PER_USER allows`, { code: 'org_limit' })
          }
          const org = toOrg(await repository.insertOrg({ name, slug, fields }))
          await repository.insertMembership({ org_id: org.id, user_id: actor.id, role: 'owner' })
          await this.record(unit, 'org_created', actor, org.id, client)
          await this.record(unit, 'member_added', actor, org.id, client, { role: 'owner' })
          await this.changes.orgChanged(unit, 'org.created', org)
          await this.changes.membershipChanged(unit, 'membership.added', { orgId: org.id, userId: actor.id, role: 'owner' })
          return this.viewOf(org, 'owner', actor)
        })
      } catch (error) {
        // Another request took the slug meanwhile: a given slug is refused, a made one tries the next.
        if (uniqueViolation(error) === undefined) throw error
        if (input.slug !== undefined) throw slugTaken()
      }
    }
    throw slugTaken()
  }

  /** The actor's organizations with their role in each, their fields as `viewer` reads them (the actor, unless a superuser looks). */
  async listMine(actor: Actor, request: PageRequest, viewer: { isSuperuser: boolean } = actor, filterText?: string): Promise<Paged<OrgView>> {
    const expression = filterText === undefined ? undefined : this.checkedFilter(filterText, viewer)
    const filter = expression && { expression, everyPrivateField: viewer.isSuperuser }
    if (filter && !narrowsByIndex(filter.expression, ORG_FILTER) && (await this.repository.countOrgsOf(actor.id)) > UNINDEXED_FILTER_MAX_ROWS) throw orgFilterTooBroad()
    const rows = ({ offset, limit }: RowWindow) => this.repository.listOrgsOf(actor.id, offset, limit, filter)
    return fetchPaged(request, { rows, count: () => this.repository.countOrgsOf(actor.id, filter), keyOf: (row) => Number(row.id) }, (row) => this.viewOf(toOrg(row), row.role as OrgRole, viewer))
  }

  /** A list's `filter` read for the viewer (400 invalid_filter): the language is content-fields', the names ORG_FILTER's. */
  private checkedFilter(filterText: string, viewer: { isSuperuser: boolean }) {
    // Every organization list is a signed-in caller's.
    return readFilter(filterText, ORG_FILTER, this.fields, { signedIn: true, isSuperuser: viewer.isSuperuser })
  }

  /** Renames, moves the slug, or sets whether members need a second factor (admins and owners). */
  async update(actor: Actor, org: OrgView, changes: OrgChanges, client: ClientInfo): Promise<OrgView> {
    // Requiring a second factor the actor does not have would lock them out of what they just changed.
    if (changes.requireMfa === true && !org.requireMfa && !(await this.secondFactors.isEnrolled(actor.id))) {
      throw mfaEnrolmentRequired('Set up a second factor before requiring one of every member')
    }
    if (changes.slug !== undefined && changes.slug !== org.slug && (await this.repository.slugTaken(changes.slug))) throw slugTaken()
    const { fields } = changes
    this.fields.assertWritable(fields, orgFieldLevel(org.role, actor))
    let updated: Org | undefined
    try {
      await this.unitOfWork.run(async (unit) => {
        const repository = this.repository.in(unit)
        let merged = {}
        if (fields !== undefined) {
          // The row is held while the fields merge (SQLite's unit holds the write lock), so no write between is lost.
          await repository.lockOrg(org.id)
          const stored = await repository.findOrgById(org.id)
          if (!stored) throw orgNotFound()
          merged = { fields: fieldsColumn(mergedFields(toOrg(stored).storedFields, this.fields.normalized(fields))) }
        }
        await repository.updateOrg(org.id, {
          ...(changes.name === undefined ? {} : { name: changes.name.trim() }),
          ...(changes.slug === undefined ? {} : { slug: changes.slug }),
          ...(changes.requireMfa === undefined ? {} : { require_mfa: changes.requireMfa ? 1 : 0 }),
          ...merged,
        })
        await this.record(unit, 'org_updated', actor, org.id, client)
        const row = await repository.findOrgById(org.id)
        if (!row) throw orgNotFound()
        updated = toOrg(row)
        await this.changes.orgChanged(unit, 'org.updated', updated)
      })
    } catch (error) {
      if (uniqueViolation(error) !== undefined) throw slugTaken()
      throw error
    }
    if (!updated) throw orgNotFound()
    return this.viewOf(updated, org.role, actor)
  }

  /** Deletes the organization with its memberships and invitations (owners). */
  async delete(org: Org): Promise<void> {
    await this.unitOfWork.run(async (unit) => {
      await this.repository.in(unit).deleteOrg(org.id)
      await this.changes.orgChanged(unit, 'org.deleted', org)
    })
  }

  /** A page of the members in the order they joined, with their total (counted with the page; apart only past the last). */
  async members(org: Org, request: Pick<PageRequest, 'page' | 'limit'>): Promise<Paged<OrgMember>> {
    const offset = offsetOf(request)
    const rows = await this.repository.listMembers(org.id, offset, request.limit)
    const total = rows[0] === undefined ? (offset === 0 ? 0 : await this.repository.countMembers(org.id)) : Number(rows[0].total)
    const items = rows.map((row) => ({
      userId: Number(row.user_id),
      name: row.name,
      username: row.username,
      email: row.email,
      role: row.role as OrgRole,
      joinedAt: toIsoString(row.created_at),
    }))
    return { items, total }
  }

  /**
   * Gives a member another role: admins change members and admins; only owners grant or take the
   * owner role. The last owner stays one (409 `last_owner`), however many demotions arrive at once.
   */
  async changeRole(actor: Actor, org: OrgView, userId: number, role: OrgRole, client: ClientInfo): Promise<OrgRole> {
    await this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      await repository.lockOrg(org.id)
      // The actor's role as it is now, with the organization held: a demotion that came first counts.
      const actorRole = await this.roleNow(repository, actor, org)
      if (!roleAtLeast(actorRole, 'admin')) throw roleRequired('admin')
      const current = await repository.findRole(org.id, userId)
      if (current === undefined) throw memberNotFound()
      if ((current === 'owner' || role === 'owner') && actorRole !== 'owner') throw roleRequired('owner')
      if (current === role) return
      if (current === 'owner' && (await repository.countOwners(org.id)) <= 1) throw lastOwner()
      await repository.setRole(org.id, userId, role)
      await this.record(unit, 'member_role_changed', actor, org.id, client)
      await this.changes.membershipChanged(unit, 'membership.role_changed', { orgId: org.id, userId, role })
    })
    return role
  }

  /** Removes a member (admins; an owner only by an owner), or the actor themself, which is leaving. The last owner stays. */
  async removeMember(actor: Actor, org: OrgView, userId: number, client: ClientInfo): Promise<void> {
    const leaving = userId === actor.id
    await this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      await repository.lockOrg(org.id)
      const actorRole = await this.roleNow(repository, actor, org)
      if (!leaving && !roleAtLeast(actorRole, 'admin')) throw roleRequired('admin')
      const current = await repository.findRole(org.id, userId)
      if (current === undefined) throw memberNotFound()
      if (current === 'owner' && !leaving && actorRole !== 'owner') throw roleRequired('owner')
      if (current === 'owner' && (await repository.countOwners(org.id)) <= 1) throw lastOwner()
      await repository.deleteMembership(org.id, userId)
      await this.record(unit, leaving ? 'member_left' : 'member_removed', actor, org.id, client)
      await this.changes.membershipChanged(unit, 'membership.removed', { orgId: org.id, userId, role: current as OrgRole })
    })
  }

  /**
   * Invites an address (admins; the owner role only by owners): mails a link that works once, for
   * INVITATION_DAYS, and ends any earlier invitation of the organization to that address. Counted
   * per organization and per inviter (INVITATION_RATE_LIMIT), failing closed.
   */
  async invite(actor: User, org: OrgView, input: { email: string; role: OrgRole }, client: ClientInfo): Promise<Invitation> {
    if (input.role === 'owner' && !this.actsAsOwner(actor, org)) throw roleRequired('owner')
    const email = input.email.toLowerCase()
    const existing = await this.users.findActiveByEmail(email)
    if (existing && (await this.repository.findRole(org.id, existing.id)) !== undefined) {
      throw new DomainError('conflict', 'This address belongs to a member already', { code: 'already_member' })
    }
    await this.rateLimits.consumeBuckets([
      ['invitation-org', String(org.id)],
      ['invitation-inviter', String(actor.id)],
    ])
    return this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      await repository.replacePendingInvitations(org.id, email)
      const { token } = await this.invitationSecrets.issue({ userId: null, data: { orgId: org.id }, unit })
      const expiresAt = new Date(Date.now() + this.options.invitationDays * 86_400_000).toISOString()
      const row = await repository.insertInvitation({ org_id: org.id, email, role: input.role, invited_by: actor.id, secret_handle: hashedKey(token), expires_at: expiresAt })
      await this.mail.queue(unit, {
        template: 'org-invitation',
        to: email,
        // In the language of the account the address belongs to; one not signed up yet gets the inviter's.
        locale: existing?.locale ?? actor.locale,
        values: { org: org.name, inviter: actor.name, role: phrase(`role.${input.role}`), link: this.options.invitationLink(token), valid_for: duration(this.options.invitationDays * 1440) },
      })
      await this.record(unit, 'invitation_sent', actor, org.id, client)
      return toInvitation(row)
    })
  }

  /** The organization's pending invitations (admins). */
  invitations(org: Org, request: PageRequest): Promise<Paged<Invitation>> {
    const rows = ({ offset, limit }: RowWindow) => this.repository.listPendingInvitations(org.id, offset, limit)
    return fetchPaged(request, { rows, count: () => this.repository.countPendingInvitations(org.id), keyOf: (row) => Number(row.id) }, toInvitation)
  }

  /** Ends a pending invitation of the organization (admins): its link stops working. */
  async revokeInvitation(actor: Actor, org: Org, invitationId: number, client: ClientInfo): Promise<void> {
    const invitation = await this.repository.findInvitation(invitationId)
    if (!invitation || Number(invitation.org_id) !== org.id) throw invitationNotFound()
    await this.unitOfWork.run(async (unit) => {
      if (!(await this.repository.in(unit).answerInvitation(invitationId, 'revoked'))) throw invitationNotFound()
      await this.record(unit, 'invitation_revoked', actor, org.id, client)
    })
  }

  /** Pending invitations to the caller's email, once it is verified (an unverified address proves nothing). */
  async received(caller: User): Promise<ReceivedInvitation[]> {
    if (!caller.isVerified) return []
    const rows = await this.repository.listPendingInvitationsTo(caller.email.toLowerCase())
    return rows.map((row) => ({ ...toInvitation(row), org: { id: Number(row.org_id), name: row.org_name, slug: row.org_slug } }))
  }

  /** What a mailed link's invitation is, without spending it (the service's own page shows it); undefined once it is no longer pending. */
  async describeInvitation(token: string): Promise<{ orgName: string; role: OrgRole; email: string } | undefined> {
    const secret = await this.invitationSecrets.peek(token)
    const invitation = secret && (await this.repository.findInvitationByHandle(secret.handle))
    if (!invitation || invitation.status !== 'pending') return undefined
    const org = await this.repository.findOrgById(Number(invitation.org_id))
    return org && { orgName: org.name, role: invitation.role as OrgRole, email: invitation.email }
  }

  /**
   * Accepts the invitation a mailed link's token names: only by the account whose verified email
   * it was sent to. An account with that address made after the invitation (someone who signed up
   * from the link), not yet verified, claims it instead: it joins when the address is verified
   * (`joinClaimed`). An older unverified account with the address proves nothing: 403.
   */
  async acceptByToken(caller: User, token: string, client: ClientInfo): Promise<OrgView | 'claimed'> {
    const secret = await this.invitationSecrets.peek(token)
    const invitation = secret && (await this.repository.findInvitationByHandle(secret.handle))
    if (!invitation || invitation.status !== 'pending') throw invalidToken()
    const signedUpFromTheLink = new Date(caller.createdAt).getTime() >= new Date(toIsoString(invitation.created_at)).getTime()
    if (!caller.isVerified && caller.email.toLowerCase() === invitation.email && signedUpFromTheLink) {
      if (!(await this.repository.claimInvitation(Number(invitation.id), caller.id))) throw invalidToken()
      return 'claimed'
    }
    this.assertAddressedTo(caller, invitation.email)
    return this.join(caller, toInvitation(invitation), client, async (unit) => (await this.invitationSecrets.spend(token, { unit })) !== undefined)
  }

  /** Accepts an invitation listed for the caller (GET /users/me/invitations). */
  async acceptById(caller: User, invitationId: number, client: ClientInfo): Promise<OrgView> {
    const invitation = await this.pendingInvitation(invitationId)
    this.assertAddressedTo(caller, invitation.email)
    return this.join(caller, invitation, client, async () => true)
  }

  /** Joins the invitations the user claimed before verifying the address they were sent to (after its verification). */
  async joinClaimed(user: User): Promise<void> {
    if (!user.isVerified) return
    for (const row of await this.repository.listClaimedInvitations(user.id, user.email.toLowerCase())) {
      const invitation = toInvitation(row)
      await this.join(user, invitation, null, async () => true).catch((error: unknown) => {
        // Answered meanwhile (revoked, replaced, expired): nothing to join.
        if (!(error instanceof DomainError)) throw error
      })
    }
  }

  async decline(caller: User, invitationId: number, client: ClientInfo): Promise<void> {
    const invitation = await this.pendingInvitation(invitationId)
    this.assertAddressedTo(caller, invitation.email)
    await this.unitOfWork.run(async (unit) => {
      if (!(await this.repository.in(unit).answerInvitation(invitation.id, 'declined'))) throw invitationNotFound()
      await this.record(unit, 'invitation_declined', caller, invitation.orgId, client)
    })
  }

  /**
   * What a user who just removed a second factor should know: when it was their last and an
   * organization of theirs requires one, its name and that it will refuse them; otherwise nothing.
   */
  async noticeAfterFactorRemoved(userId: number): Promise<string | undefined> {
    if (await this.secondFactors.isEnrolled(userId)) return undefined
    const requiring = await this.repository.listOrgNamesRequiringMfa(userId)
    if (requiring.length === 0) return undefined
    return `${requiring.join(', ')} ${requiring.length === 1 ? 'requires' : 'require'} a second factor of members: you are refused there until you set one up again`
  }

  /**
   * Refuses to remove for good a user who is the only owner of an organization (409
   * `last_owner`), in the removal's unit: an organization always keeps an owner who can act.
   */
  async assertNotLastOwner(unit: Unit, userId: number): Promise<void> {
    const sole = await this.repository.in(unit).listOrgNamesSolelyOwnedBy(userId)
    if (sole.length > 0) throw new DomainError('conflict', `The user is the last owner of ${sole.join(', ')}: make another member an owner first`, { code: 'last_owner' })
  }

  /**
   * The organizations of `ids` the caller may read, as they see them: those whose grants they hold
   * (`roles`, from rolesOf: the `member` rule of the organization's own routes), or every one for
   * a superuser. Only the readable ones are read, in one query.
   */
  async readableOf(ids: Iterable<number>, caller: { isSuperuser: boolean; roles: ReadonlyMap<number, OrgRole> }): Promise<OrgView[]> {
    const readable = [...new Set(ids)].filter((id) => caller.isSuperuser || caller.roles.has(id))
    if (readable.length === 0) return []
    return (await this.repository.findOrgsByIds(readable)).map((row) => this.viewOf(toOrg(row), caller.roles.get(Number(row.id)) ?? null, caller))
  }

  /**
   * The organizations whose grants the user holds, with their role in each: who reads an
   * organization's posts, their files and its events. The one source of them: a member who does
   * not meet an organization's rule (a second factor, with `require_mfa`) holds none of its grants
   * on any path, as on the organization's own routes.
   */
  async rolesOf(userId: number): Promise<Map<number, OrgRole>> {
    const rows = await this.repository.listRolesOf(userId)
    // Asked only of a member of an organization with the rule: most lists cost no second query.
    const withheld = rows.some((row) => Boolean(row.require_mfa)) && !(await this.secondFactors.isEnrolled(userId))
    return new Map(rows.filter((row) => !(withheld && row.require_mfa)).map((row) => [Number(row.org_id), row.role as OrgRole]))
  }

  /** What a stream follows (rolesOf's rule, kept up as events pass): the grants held, those the second-factor rule withholds, and whether the user has a second factor. */
  async grantsOf(userId: number): Promise<{ roles: Map<number, OrgRole>; withheld: Map<number, OrgRole>; secondFactor: boolean }> {
    const [rows, secondFactor] = await Promise.all([this.repository.listRolesOf(userId), this.secondFactors.isEnrolled(userId)])
    const roles = new Map<number, OrgRole>()
    const withheld = new Map<number, OrgRole>()
    for (const row of rows) (row.require_mfa && !secondFactor ? withheld : roles).set(Number(row.org_id), row.role as OrgRole)
    return { roles, withheld, secondFactor }
  }

  /**
   * The role whose grants the user holds in the organization (rolesOf's rule); inside a unit, the
   * membership is held until it ends (a change decides on it).
   */
  async roleIn(unit: Unit | undefined, orgId: number, userId: number): Promise<OrgRole | undefined> {
    const row = await (unit ? this.repository.in(unit) : this.repository).findRoleAndRule(orgId, userId)
    if (row === undefined) return undefined
    if (row.require_mfa && !(await this.secondFactors.isEnrolled(userId, unit))) return undefined
    return row.role as OrgRole
  }

  /** Which of these organizations require a second factor of members (the stream follows the rule). */
  mfaRulesOf(orgIds: readonly number[]): Promise<Map<number, boolean>> {
    return this.repository.findMfaRules(orgIds)
  }

  /** Every organization (superusers). */
  async listAll(actor: Actor, request: PageRequest, filterText?: string): Promise<Paged<OrgView>> {
    assertSuperuser(actor)
    const filter = filterText === undefined ? undefined : this.checkedFilter(filterText, actor)
    if (filter && !narrowsByIndex(filter, ORG_FILTER) && (await this.repository.countAllOrgs()) > UNINDEXED_FILTER_MAX_ROWS) throw orgFilterTooBroad()
    const rows = ({ offset, limit }: RowWindow) => this.repository.listAllOrgs(offset, limit, filter)
    return fetchPaged(request, { rows, count: () => this.repository.countAllOrgs(filter), keyOf: (row) => Number(row.id) }, (row) => this.viewOf(toOrg(row), null, actor))
  }

  /** A user's organizations with their role in each (superusers). */
  listOf(actor: Actor, userId: number, request: PageRequest, filterText?: string): Promise<Paged<OrgView>> {
    assertSuperuser(actor)
    return this.listMine({ id: userId, isSuperuser: false }, request, actor, filterText)
  }

  /** The organization's own log (admins): who changed what in it. */
  securityLog(org: Org, request: PageRequest) {
    return this.securityEvents.listOfOrg(org.id, {}, request)
  }

  private async pendingInvitation(id: number): Promise<Invitation> {
    const row = await this.repository.findInvitation(id)
    if (!row || row.status !== 'pending' || new Date(toIsoString(row.expires_at)).getTime() <= Date.now()) throw invitationNotFound()
    return toInvitation(row)
  }

  /** The caller's email is the invitation's, and verified: otherwise 403, and the invitation stays pending. */
  private assertAddressedTo(caller: User, email: string): void {
    if (!caller.isVerified || caller.email.toLowerCase() !== email) {
      throw new DomainError('forbidden', 'This invitation was sent to another email address', { code: 'invitation_email_mismatch' })
    }
  }

  /** Answers the invitation and adds the membership in one unit: of two accepts at once, one joins. */
  private async join(caller: User, invitation: Invitation, client: ClientInfo | null, spend: (unit: Unit) => Promise<boolean>): Promise<OrgView> {
    await this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      if (!(await spend(unit)) || !(await repository.answerInvitation(invitation.id, 'accepted'))) throw invalidToken()
      const joined = await repository.insertMembership({ org_id: invitation.orgId, user_id: caller.id, role: invitation.role })
      await this.record(unit, 'invitation_accepted', caller, invitation.orgId, client)
      if (joined) {
        await this.record(unit, 'member_added', caller, invitation.orgId, client, { role: invitation.role })
        await this.changes.membershipChanged(unit, 'membership.added', { orgId: invitation.orgId, userId: caller.id, role: invitation.role })
      }
    })
    return this.access(caller, String(invitation.orgId), 'member', { mfaExempt: true })
  }

  /** The actor's role in the organization now (superusers act as owners); 404 when they left or were removed meanwhile. */
  private async roleNow(repository: OrgsRepository, actor: Actor, org: Org): Promise<OrgRole> {
    if (actor.isSuperuser) return 'owner'
    const role = await repository.findRole(org.id, actor.id)
    if (role === undefined) throw orgNotFound()
    return role as OrgRole
  }

  /** The organization as `viewer` sees it, with `role`: the custom fields of their level (orgFieldLevel). */
  private viewOf(org: Org, role: OrgRole | null, viewer: { isSuperuser: boolean }): OrgView {
    return { ...org, role, fields: this.fields.view(org.storedFields, orgFieldLevel(role, viewer)) }
  }

  private actsAsOwner(actor: Actor, org: OrgView): boolean {
    return actor.isSuperuser || org.role === 'owner'
  }

  /** Of free slugs made from `base`: the base itself, then -2, -3 …; past those, a random ending. */
  private async freeSlug(base: string, attempt: number): Promise<string> {
    for (let n = attempt === 0 ? 1 : attempt * 5; n < (attempt + 1) * 5; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`
      if (!(await this.repository.slugTaken(candidate))) return candidate
    }
    return `${base}-${Math.random().toString(36).slice(2, 8)}`
  }

  private record(unit: Unit, type: SecurityEventType, actor: Actor, orgId: number, client: ClientInfo | null, details?: Record<string, unknown>): Promise<void> {
    return this.securityEvents.record(type, actor.id, client, { unit, orgId, ...(details === undefined ? {} : { details }) })
  }
}
