// Organizations: teams of users, each member with one role. Owners may do everything, admins
// everything but granting or taking the owner role and deleting, members read the organization
// and act on their own membership. An organization keeps at least one owner.
import { toIsoString } from '../../shared/timestamps.js'
import type { FieldLevel, FieldValues } from '../content-fields/index.js'
import { storedFieldsOf } from '../content-fields/index.js'
import type { OrganizationRow, OrgInvitationRow } from './orgs.table.js'

export const ORG_ROLES = ['member', 'admin', 'owner'] as const
export type OrgRole = (typeof ORG_ROLES)[number]

const RANK: Record<OrgRole, number> = { member: 1, admin: 2, owner: 3 }

/** Whether `role` is at least `required`. */
export const roleAtLeast = (role: OrgRole, required: OrgRole) => RANK[role] >= RANK[required]

export const isOrgRole = (value: string): value is OrgRole => (ORG_ROLES as readonly string[]).includes(value)

export interface Org {
  id: number
  name: string
  slug: string
  requireMfa: boolean
  createdAt: string
  updatedAt: string
  /** Its custom fields as stored, every level: shown only through a view (OrgView.fields). */
  storedFields: FieldValues
}

/** An organization as one caller sees it: their role in it (null for a superuser who is not a member) and the fields of their level. */
export interface OrgView extends Org {
  role: OrgRole | null
  /** Its custom fields as this caller may read them (orgFieldLevel); none until the service sets them. */
  fields: FieldValues
}

/**
 * Which of an organization's custom fields a caller reads (docs/api.md "Custom fields"):
 * superusers every level, its admins and owners the private ones too, members and everyone else
 * who reads it the public ones. A write sets the fields of the writer's level.
 */
export function orgFieldLevel(role: OrgRole | null | undefined, viewer: { isSuperuser: boolean }): FieldLevel {
  if (viewer.isSuperuser) return 'server'
  return role !== null && role !== undefined && roleAtLeast(role, 'admin') ? 'private' : 'public'
}


export interface OrgMember {
  userId: number
  name: string
  username: string
  email: string
  role: OrgRole
  joinedAt: string
}

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'replaced'

export interface Invitation {
  id: number
  orgId: number
  email: string
  role: OrgRole
  invitedBy: number | null
  status: InvitationStatus
  createdAt: string
  expiresAt: string
}

/** An invitation addressed to the caller, with the organization it opens. */
export interface ReceivedInvitation extends Invitation {
  org: Pick<Org, 'id' | 'name' | 'slug'>
}

export const toOrg = (row: OrganizationRow): Org => ({
  id: Number(row.id),
  name: row.name,
  slug: row.slug,
  requireMfa: Boolean(row.require_mfa),
  createdAt: toIsoString(row.created_at),
  updatedAt: toIsoString(row.updated_at),
  storedFields: storedFieldsOf(row.fields),
})

export const toInvitation = (row: OrgInvitationRow): Invitation => ({
  id: Number(row.id),
  orgId: Number(row.org_id),
  email: row.email,
  role: row.role as OrgRole,
  invitedBy: row.invited_by === null ? null : Number(row.invited_by),
  status: row.status as InvitationStatus,
  createdAt: toIsoString(row.created_at),
  expiresAt: toIsoString(row.expires_at),
})

/** A slug: lowercase letters, digits and single dashes, with a letter, so it never reads as an id. */
export const SLUG_PATTERN = '^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$'
const SLUG = new RegExp(SLUG_PATTERN)
export const SLUG_MAX = 48

export const isSlug = (value: string) => value.length <= SLUG_MAX && SLUG.test(value)

/** A slug made from a name: accents dropped, anything else between words a dash; `org` when nothing is left. */
export function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  return isSlug(base) ? base : base === '' ? 'org' : `org-${base}`.slice(0, 40).replace(/-+$/, '')
}
