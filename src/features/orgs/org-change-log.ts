// What a change to an organization or a membership records in its own unit of work, for webhooks
// and realtime streams. The orgs feature names its events and the call it needs; the
// change-events feature implements it.
import type { Unit } from '../../db/unit-of-work.js'
import type { Org, OrgRole } from './org.js'

export const ORG_EVENT_TYPES = ['org.created', 'org.updated', 'org.deleted', 'membership.added', 'membership.role_changed', 'membership.removed'] as const
export type OrgEventType = (typeof ORG_EVENT_TYPES)[number]
export type OrgOnlyEventType = Extract<OrgEventType, `org.${string}`>
export type MembershipEventType = Extract<OrgEventType, `membership.${string}`>

export interface Membership {
  orgId: number
  userId: number
  role: OrgRole
}

export interface OrgChangeLog {
  orgChanged(unit: Unit, type: OrgOnlyEventType, org: Org): Promise<void>
  membershipChanged(unit: Unit, type: MembershipEventType, membership: Membership): Promise<void>
}
