// Version 2's shapes of organizations, members and invitations.
import type { CollectionFields } from '../content-fields/index.js'
import type { Invitation, Org, OrgMember, OrgView, ReceivedInvitation } from './org.js'
import type { Membership } from './org-change-log.js'

export const toOrgRead = (org: OrgView) => ({ id: org.id, name: org.name, slug: org.slug, require_mfa: org.requireMfa, created_at: org.createdAt, role: org.role, fields: org.fields })

/** An organization as its change events carry it (every member hears them): OrgRead without a reader's role, its public fields only. */
export const toOrgEventRead = (org: Org, fields: CollectionFields) => ({ id: org.id, name: org.name, slug: org.slug, require_mfa: org.requireMfa, created_at: org.createdAt, fields: fields.view(org.storedFields, 'public') })

/** A membership as its change events carry it. */
export const toMembershipRead = (membership: Membership) => ({ org_id: membership.orgId, user_id: membership.userId, role: membership.role })

/** `showEmail`: whether the reader may see the member's email. */
export const toMemberRead = (member: OrgMember, showEmail: boolean) => ({
  user_id: member.userId,
  name: member.name,
  username: member.username,
  email: showEmail ? member.email : undefined,
  role: member.role,
  joined_at: member.joinedAt,
})

export const toInvitationRead = (invitation: Invitation) => ({
  id: invitation.id,
  org_id: invitation.orgId,
  email: invitation.email,
  role: invitation.role,
  invited_by: invitation.invitedBy,
  created_at: invitation.createdAt,
  expires_at: invitation.expiresAt,
})

export const toReceivedInvitationRead = (invitation: ReceivedInvitation) => ({ ...toInvitationRead(invitation), org: invitation.org })
