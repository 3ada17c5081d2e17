// The organizations feature's SQL, the only place it lives.
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { preparedQuery } from '../../db/fast-path/prepared.js'
import { filterSql } from '../../db/filter-sql.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import type { FilterNode } from '../../shared/filter-tree.js'
import { nowIso } from '../../shared/timestamps.js'
import type { OrganizationRow, OrgInvitationRow } from './orgs.table.js'

const ORG_COLUMNS = ['organizations.id', 'organizations.name', 'organizations.slug', 'organizations.require_mfa', 'organizations.fields', 'organizations.created_at', 'organizations.updated_at'] as const

/** `fields`: its custom fields as JSON text. */
export function insertOrg(db: Executor, org: { name: string; slug: string; fields: string }): Promise<OrganizationRow> {
  const now = nowIso()
  return db.insertInto('organizations').values({ name: org.name, slug: org.slug, require_mfa: 0, fields: org.fields, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow()
}

export function findOrgById(db: Executor, id: number): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').select(ORG_COLUMNS).where('id', '=', id).executeTakeFirst()
}

/** The organizations of `ids`, in one statement. */
export function findOrgsByIds(db: Executor, ids: readonly number[]): Promise<OrganizationRow[]> {
  return db.selectFrom('organizations').select(ORG_COLUMNS).where('id', 'in', [...ids]).execute()
}

export function findOrgBySlug(db: Executor, slug: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').select(ORG_COLUMNS).where('slug', '=', slug).executeTakeFirst()
}

const orgWithRole = (db: Executor, userId: number) =>
  db
    .selectFrom('organizations')
    .leftJoin('org_memberships', (join) => join.onRef('org_memberships.org_id', '=', 'organizations.id').on('org_memberships.user_id', '=', userId))
    .select([...ORG_COLUMNS, 'org_memberships.role'])
// Every request on an organization reads it with the caller's role: compiled once (src/db/fast-path).
const preparedOrgWithRoleById = preparedQuery(2, (db: Executor, id: number, userId: number) => orgWithRole(db, userId).where('organizations.id', '=', id), { singleRow: true })
const preparedOrgWithRoleBySlug = preparedQuery(2, (db: Executor, slug: string, userId: number) => orgWithRole(db, userId).where('organizations.slug', '=', slug), { singleRow: true })

/** The organization (by id or slug) and the user's role in it, in one statement: what every organization request pays. */
export async function findOrgWithRole(db: Executor, key: { id: number } | { slug: string }, userId: number): Promise<(OrganizationRow & { role: string | null }) | undefined> {
  const rows = 'id' in key ? await preparedOrgWithRoleById(db, key.id, userId) : await preparedOrgWithRoleBySlug(db, key.slug, userId)
  return rows[0]
}

export async function slugTaken(db: Executor, slug: string): Promise<boolean> {
  return (await db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined
}

export async function updateOrg(db: Executor, id: number, changes: { name?: string; slug?: string; require_mfa?: 0 | 1; fields?: string }): Promise<void> {
  await db.updateTable('organizations').set({ ...changes, updated_at: nowIso() }).where('id', '=', id).execute()
}

/** Deletes it with its memberships and invitations (deleted first: no reliance on each database's cascade). */
export async function deleteOrg(db: Executor, id: number): Promise<boolean> {
  await db.deleteFrom('org_memberships').where('org_id', '=', id).execute()
  await db.deleteFrom('org_invitations').where('org_id', '=', id).execute()
  const result = await db.deleteFrom('organizations').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/**
 * Holds the organization's row until the unit ends (PostgreSQL): changes to its owners wait for
 * each other, so two demotions at once cannot both see another owner. SQLite runs one writing
 * transaction at a time already.
 */
export async function lockOrg(db: Executor, id: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('organizations').select('id').where('id', '=', id).forUpdate().execute()
}

/**
 * Holds the user's row until the unit ends (PostgreSQL): two creations by one user wait for each
 * other, so both cannot pass ORGS_PER_USER. SQLite runs one writing transaction at a time already.
 */
export async function lockUser(db: Executor, userId: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
}

/**
 * A list's `filter` as the repository takes it: the checked tree, and whether the caller reads
 * every organization's private fields (a superuser) or only those of the ones they administer.
 */
export interface OrgListFilter {
  expression: FilterNode
  everyPrivateField: boolean
}

/** On a user's organizations: a private field compared only where their role is admin or owner. */
const filterOfMemberships = (db: Executor, filter: OrgListFilter) =>
  filterSql(db, filter.expression, { table: 'organizations', privateGuard: filter.everyPrivateField ? undefined : sql<boolean>`org_memberships.role in ('admin', 'owner')` })

/** On every organization (superusers, who read every private field). */
const filterOfAll = (db: Executor, filter: FilterNode) => filterSql(db, filter, { table: 'organizations', privateGuard: undefined })

/** The user's organizations, oldest membership first, with their role. */
export function listOrgsOf(db: Executor, userId: number, offset: number, limit: number, filter?: OrgListFilter): Promise<(OrganizationRow & { role: string })[]> {
  return db
    .selectFrom('org_memberships')
    .innerJoin('organizations', 'organizations.id', 'org_memberships.org_id')
    .select([...ORG_COLUMNS, 'org_memberships.role'])
    .where('org_memberships.user_id', '=', userId)
    .$if(filter !== undefined, (qb) => qb.where(filterOfMemberships(db, filter!)))
    .orderBy('organizations.id')
    .offset(offset)
    .limit(limit)
    .execute()
}

// Every signed-in list of posts reads the caller's memberships (who reads which post): compiled once.
const preparedRolesOf = preparedQuery(1, (db: Executor, userId: number) =>
  db
    .selectFrom('org_memberships')
    .innerJoin('organizations', 'organizations.id', 'org_memberships.org_id')
    .select(['org_memberships.org_id', 'org_memberships.role', 'organizations.require_mfa'])
    .where('org_memberships.user_id', '=', userId),
)

/** The user's memberships, each with its organization's second-factor rule. */
export function listRolesOf(db: Executor, userId: number): Promise<{ org_id: number; role: string; require_mfa: boolean | number }[]> {
  return preparedRolesOf(db, userId)
}

/** The user's role in the organization with the organization's second-factor rule (held until the unit ends, as findRole). */
export async function findRoleAndRule(db: Executor, orgId: number, userId: number): Promise<{ role: string; require_mfa: boolean | number } | undefined> {
  return db
    .selectFrom('org_memberships')
    .innerJoin('organizations', 'organizations.id', 'org_memberships.org_id')
    .select(['org_memberships.role', 'organizations.require_mfa'])
    .where('org_memberships.org_id', '=', orgId)
    .where('org_memberships.user_id', '=', userId)
    .$if(isPostgres(db) && db.isTransaction, (qb) => qb.forShare('org_memberships'))
    .executeTakeFirst()
}

/** Which of these organizations require a second factor of their members (those that exist). */
export async function findMfaRules(db: Executor, orgIds: readonly number[]): Promise<Map<number, boolean>> {
  if (orgIds.length === 0) return new Map()
  const rows = await db.selectFrom('organizations').select(['id', 'require_mfa']).where('id', 'in', [...orgIds]).execute()
  return new Map(rows.map((row) => [Number(row.id), Boolean(row.require_mfa)]))
}

/** The names of the user's organizations that require a second factor of members. */
export async function listOrgNamesRequiringMfa(db: Executor, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('org_memberships')
    .innerJoin('organizations', 'organizations.id', 'org_memberships.org_id')
    .select('organizations.name')
    .where('org_memberships.user_id', '=', userId)
    .where('organizations.require_mfa', '=', 1)
    .orderBy('organizations.name')
    .execute()
  return rows.map((row) => row.name)
}

export async function countOrgsOf(db: Executor, userId: number, filter?: OrgListFilter): Promise<number> {
  const row = await db
    .selectFrom('org_memberships')
    .$if(filter !== undefined, (qb) => qb.innerJoin('organizations', 'organizations.id', 'org_memberships.org_id').where(filterOfMemberships(db, filter!)))
    .select((eb) => eb.fn.countAll().as('count'))
    .where('org_memberships.user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function countOwnedBy(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('org_memberships').select((eb) => eb.fn.countAll().as('count')).where('user_id', '=', userId).where('role', '=', 'owner').executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Every organization (superusers), oldest first. */
export function listAllOrgs(db: Executor, offset: number, limit: number, filter?: FilterNode): Promise<OrganizationRow[]> {
  return db
    .selectFrom('organizations')
    .select(ORG_COLUMNS)
    .$if(filter !== undefined, (qb) => qb.where(filterOfAll(db, filter!)))
    .orderBy('id')
    .offset(offset)
    .limit(limit)
    .execute()
}

export async function countAllOrgs(db: Executor, filter?: FilterNode): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll().as('count'))
    .$if(filter !== undefined, (qb) => qb.where(filterOfAll(db, filter!)))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Adds a member; false when they already were one (two accepts at once make one membership). */
export async function insertMembership(db: Executor, membership: { org_id: number; user_id: number; role: string }): Promise<boolean> {
  const result = await db
    .insertInto('org_memberships')
    .values({ ...membership, created_at: nowIso() })
    .onConflict((conflict) => conflict.columns(['org_id', 'user_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}

/** The member's role; in a PostgreSQL transaction the membership row is share-locked until it ends, so a removal waits for the change deciding on it. */
export async function findRole(db: Executor, orgId: number, userId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('org_memberships')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .$if(isPostgres(db) && db.isTransaction, (qb) => qb.forShare())
    .executeTakeFirst()
  return row?.role
}

/** The names of the organizations where the user is the only live owner. */
export async function listOrgNamesSolelyOwnedBy(db: Executor, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('org_memberships as mine')
    .innerJoin('organizations', 'organizations.id', 'mine.org_id')
    .select('organizations.name')
    .where('mine.user_id', '=', userId)
    .where('mine.role', '=', 'owner')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('org_memberships as other')
            .innerJoin('users', 'users.id', 'other.user_id')
            .select('other.user_id')
            .whereRef('other.org_id', '=', 'mine.org_id')
            .where('other.role', '=', 'owner')
            .where('other.user_id', '<>', userId)
            .where('users.is_deleted', '=', 0),
        ),
      ),
    )
    .orderBy('organizations.name')
    .execute()
  return rows.map((row) => row.name)
}

/** Owners whose accounts are live: a soft-deleted owner cannot act for the organization. */
export async function countOwners(db: Executor, orgId: number): Promise<number> {
  const row = await db
    .selectFrom('org_memberships')
    .innerJoin('users', 'users.id', 'org_memberships.user_id')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('org_memberships.org_id', '=', orgId)
    .where('org_memberships.role', '=', 'owner')
    .where('users.is_deleted', '=', 0)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function setRole(db: Executor, orgId: number, userId: number, role: string): Promise<boolean> {
  const result = await db.updateTable('org_memberships').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deleteMembership(db: Executor, orgId: number, userId: number): Promise<boolean> {
  const result = await db.deleteFrom('org_memberships').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export interface MemberRow {
  user_id: number
  name: string
  username: string
  email: string
  role: string
  created_at: string | Date
  /** How many live members the organization has, every row the same. */
  total: number | string
}

const preparedMemberPage = preparedQuery(3, (db: Executor, orgId: number, offset: number, limit: number) =>
  db
    .selectFrom('org_memberships')
    .innerJoin('users', 'users.id', 'org_memberships.user_id')
    .select(['org_memberships.user_id', 'users.name', 'users.username', 'users.email', 'org_memberships.role', 'org_memberships.created_at'])
    // Every live member, counted in the same statement (a page is one round trip, not two).
    .select(sql<number | string>`count(*) over ()`.as('total'))
    .where('org_memberships.org_id', '=', orgId)
    .where('users.is_deleted', '=', 0)
    .orderBy('org_memberships.created_at')
    .orderBy('org_memberships.user_id')
    .offset(offset)
    .limit(limit),
)
const preparedMemberCount = preparedQuery(
  1,
  (db: Executor, orgId: number) =>
    db
      .selectFrom('org_memberships')
      .innerJoin('users', 'users.id', 'org_memberships.user_id')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('org_memberships.org_id', '=', orgId)
      .where('users.is_deleted', '=', 0),
  { singleRow: true },
)

/** The organization's live members, in the order they joined, each row with their total. */
export function listMembers(db: Executor, orgId: number, offset: number, limit: number): Promise<MemberRow[]> {
  return preparedMemberPage(db, orgId, offset, limit)
}

export async function countMembers(db: Executor, orgId: number): Promise<number> {
  return Number((await preparedMemberCount(db, orgId))[0]?.count ?? 0)
}

export function insertInvitation(
  db: Executor,
  invitation: { org_id: number; email: string; role: string; invited_by: number; secret_handle: string; expires_at: string },
): Promise<OrgInvitationRow> {
  return db
    .insertInto('org_invitations')
    .values({ ...invitation, status: 'pending', created_at: nowIso() })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Ends the pending invitations of the organization to this address (a newer one replaces them). */
export async function replacePendingInvitations(db: Executor, orgId: number, email: string): Promise<void> {
  await db.updateTable('org_invitations').set({ status: 'replaced', answered_at: nowIso() }).where('org_id', '=', orgId).where('email', '=', email).where('status', '=', 'pending').execute()
}

export function findInvitation(db: Executor, id: number): Promise<OrgInvitationRow | undefined> {
  return db.selectFrom('org_invitations').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The invitation whose link's secret has this hash. */
export function findInvitationByHandle(db: Executor, handle: string): Promise<OrgInvitationRow | undefined> {
  return db.selectFrom('org_invitations').selectAll().where('secret_handle', '=', handle).executeTakeFirst()
}

/**
 * Moves a pending, unexpired invitation to its answer; false when it was no longer pending (an
 * answer at once from elsewhere, a revocation, a newer invitation) or has expired.
 */
export async function answerInvitation(db: Executor, id: number, status: 'accepted' | 'declined' | 'revoked'): Promise<boolean> {
  const now = nowIso()
  const result = await db
    .updateTable('org_invitations')
    .set({ status, answered_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Notes the account that opened a pending invitation's link before verifying its address; false when it is no longer pending. */
export async function claimInvitation(db: Executor, id: number, userId: number): Promise<boolean> {
  const result = await db.updateTable('org_invitations').set({ claimed_by: userId }).where('id', '=', id).where('status', '=', 'pending').where('expires_at', '>', nowIso()).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Pending, unexpired invitations to `email` that this account claimed. */
export function listClaimedInvitations(db: Executor, userId: number, email: string): Promise<OrgInvitationRow[]> {
  return db
    .selectFrom('org_invitations')
    .selectAll()
    .where('claimed_by', '=', userId)
    .where('email', '=', email)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso())
    .orderBy('id')
    .execute()
}

/** The organization's pending, unexpired invitations, newest first. */
export function listPendingInvitations(db: Executor, orgId: number, offset: number, limit: number): Promise<OrgInvitationRow[]> {
  return db
    .selectFrom('org_invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso())
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute()
}

export async function countPendingInvitations(db: Executor, orgId: number): Promise<number> {
  const row = await db
    .selectFrom('org_invitations')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('org_id', '=', orgId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso())
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Pending, unexpired invitations to an address, with their organization. */
export function listPendingInvitationsTo(db: Executor, email: string): Promise<(OrgInvitationRow & { org_name: string; org_slug: string })[]> {
  return db
    .selectFrom('org_invitations')
    .innerJoin('organizations', 'organizations.id', 'org_invitations.org_id')
    .selectAll('org_invitations')
    .select(['organizations.name as org_name', 'organizations.slug as org_slug'])
    .where('org_invitations.email', '=', email)
    .where('org_invitations.status', '=', 'pending')
    .where('org_invitations.expires_at', '>', nowIso())
    .orderBy('org_invitations.id', 'desc')
    .execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const orgsFunctions = {
  insertOrg,
  findOrgById,
  findOrgsByIds,
  findOrgBySlug,
  findOrgWithRole,
  slugTaken,
  updateOrg,
  deleteOrg,
  lockOrg,
  lockUser,
  listOrgsOf,
  countOrgsOf,
  listRolesOf,
  findRoleAndRule,
  findMfaRules,
  listOrgNamesRequiringMfa,
  countOwnedBy,
  listAllOrgs,
  countAllOrgs,
  insertMembership,
  findRole,
  countOwners,
  listOrgNamesSolelyOwnedBy,
  setRole,
  deleteMembership,
  listMembers,
  countMembers,
  insertInvitation,
  replacePendingInvitations,
  findInvitation,
  findInvitationByHandle,
  answerInvitation,
  claimInvitation,
  listClaimedInvitations,
  listPendingInvitations,
  countPendingInvitations,
  listPendingInvitationsTo,
}
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const orgsReadTargets: ReadTargets<typeof orgsFunctions> = {
  insertOrg: 'write',
  findOrgById: 'replica',
  findOrgsByIds: 'replica',
  findOrgBySlug: 'replica',
  findOrgWithRole: 'primary',
  slugTaken: 'primary',
  updateOrg: 'write',
  deleteOrg: 'write',
  lockOrg: 'write',
  lockUser: 'write',
  listOrgsOf: 'replica',
  countOrgsOf: 'replica',
  listRolesOf: 'primary',
  findRoleAndRule: 'primary',
  findMfaRules: 'primary',
  listOrgNamesRequiringMfa: 'primary',
  countOwnedBy: 'primary',
  listAllOrgs: 'replica',
  countAllOrgs: 'replica',
  insertMembership: 'write',
  findRole: 'primary',
  countOwners: 'primary',
  listOrgNamesSolelyOwnedBy: 'primary',
  setRole: 'write',
  deleteMembership: 'write',
  listMembers: 'replica',
  countMembers: 'replica',
  insertInvitation: 'write',
  replacePendingInvitations: 'write',
  findInvitation: 'primary',
  findInvitationByHandle: 'primary',
  answerInvitation: 'write',
  claimInvitation: 'write',
  listClaimedInvitations: 'primary',
  listPendingInvitations: 'primary',
  countPendingInvitations: 'primary',
  listPendingInvitationsTo: 'primary',
}

export type OrgsRepository = Repository<typeof orgsFunctions>
