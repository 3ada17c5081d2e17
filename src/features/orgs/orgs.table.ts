// Organizations, who belongs to them with which role, and the invitations to join them.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { Flag, NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface OrganizationsTable {
  id: Generated<number>
  name: string
  /** Lowercase letters, digits and dashes, with at least one letter; unique. */
  slug: string
  require_mfa: Flag
  /** Its custom fields (CONTENT_SCHEMA's `orgs`) as one JSON object: text on SQLite, jsonb on PostgreSQL (migration 2026-12-13-02-org-fields). */
  fields: ColumnType<unknown, string | undefined, string>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface OrgMembershipsTable {
  org_id: number
  user_id: number
  /** owner, admin or member. */
  role: string
  created_at: Timestamp
}

export interface OrgInvitationsTable {
  id: Generated<number>
  org_id: number
  /** Lowercased; only a user whose verified email it is may accept. */
  email: string
  role: string
  invited_by: number | null
  /** pending, accepted, declined, revoked or replaced (a newer invitation to the same address). */
  status: string
  /** The account with the invited address that opened the link before verifying it: it joins once verified. */
  claimed_by: ColumnType<number | null, number | null | undefined, number | null>
  /** The SHA-256 of the link's token, a one-time secret of the `org_invitation` kind. */
  secret_handle: string
  created_at: Timestamp
  expires_at: Timestamp
  answered_at: NullableTimestamp
}

export type OrganizationRow = Selectable<OrganizationsTable>
export type OrgInvitationRow = Selectable<OrgInvitationsTable>

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    organizations: OrganizationsTable
    org_memberships: OrgMembershipsTable
    org_invitations: OrgInvitationsTable
  }
}
