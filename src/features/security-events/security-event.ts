import { toIsoString } from '../../shared/timestamps.js'
import type { SecurityEventRow } from './security-events.table.js'

export const SECURITY_EVENT_TYPES = [
  'user_signed_up',
  'login_succeeded',
  'login_failed',
  'logout',
  'refresh_token_reused',
  'password_changed',
  'password_reset_requested',
  'email_login_requested',
  'identity_linked',
  'identity_unlinked',
  'password_reset',
  'email_changed',
  'email_change_undone',
  'email_verified',
  'session_revoked',
  'mfa_enabled',
  'mfa_disabled',
  'mfa_verified',
  'mfa_failed',
  'recovery_codes_regenerated',
  'recovery_code_used',
  'mfa_reset_by_admin',
  'passkey_added',
  'passkey_removed',
  'passkey_counter_refused',
  'user_deleted_permanently',
  'reauthenticated',
  'reauthentication_failed',
  'ways_in_ended',
  'webhook_created',
  'webhook_deleted',
  'webhook_secret_rotated',
  'webhook_disabled',
  // A superuser read or changed a post no rule opened to them (post_id names it; a list, the page).
  'post_read_as_superuser',
  'post_changed_as_superuser',
  'posts_listed_as_superuser',
  // In an organization's own log (org_id): who did it is the user named.
  'org_created',
  'org_updated',
  'member_added',
  'member_role_changed',
  'member_removed',
  'member_left',
  'invitation_sent',
  'invitation_accepted',
  'invitation_declined',
  'invitation_revoked',
  // Abuse protection: a refused CAPTCHA, a breached password refused, a blocked address domain, and the breach list out of reach.
  'captcha_failed',
  'password_breached_refused',
  'email_domain_blocked',
  'breached_password_check_failed',
  // Moderation: actor_id names the superuser; details carry the ban's end or the impersonation's mode, reason and end.
  'user_banned',
  'user_unbanned',
  'impersonation_started',
  'impersonation_ended',
  // Privacy: an owner deleted their account (details: deletion_due_at), and took it back.
  'account_deletion_requested',
  'account_deletion_cancelled',
  // Privacy: an owner asked for their data (details: export_id), and downloaded it.
  'data_export_requested',
  'data_export_downloaded',
  // A sign-in from a new device was mailed to the owner (details: browser, os, platform, network), who answered "this wasn't me".
  'new_device_alerted',
  'new_device_reported',
  // Comments (post_id; details: comment_id, and the reason of a hiding): a moderator hid one or showed it again, a superuser removed one.
  'comment_hidden',
  'comment_unhidden',
  'comment_removed',
  // A moderator resolved a report (details: report_id, target, target_id, action, and how many open reports on it were resolved with it).
  'report_resolved',
] as const
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number]

/**
 * How a login was made, named on its login_succeeded and login_failed events (and the provider
 * on identity_linked): a password, a mailed link or code, GitHub, or an OpenID Connect provider (`oidc:google`).
 */
export type LoginMethod = 'password' | 'email_link' | 'email_code' | 'passkey' | 'github' | `oidc:${string}`

/** A second factor, named on the mfa_* events (mfa_verified, mfa_failed …). */
export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey'

/** What an event's `method` names: the first factor of a login, or the second factor used. */
export type EventMethod = LoginMethod | SecondFactorMethod

export type { ClientInfo } from '../../shared/client-info.js'

export interface SecurityEvent {
  id: string
  userId: number | null
  type: SecurityEventType
  /** How the login was made, or which second factor; null for other events. */
  method: EventMethod | null
  ip: string | null
  userAgent: string | null
  /** The post a superuser read or changed (post_read_as_superuser, post_changed_as_superuser). */
  postId: number | null
  /** The superuser who acted on the user (a ban, an impersonation); null when the user acted. */
  actorId: number | null
  /** What else the event says (an impersonation's mode, reason and end; a ban's end). */
  details: Record<string, unknown> | null
  createdAt: string
}

export interface SecurityEventFilter {
  userId?: number
  /** An organization's own log. */
  orgId?: number
  type?: SecurityEventType
}

export const toSecurityEvent = (row: SecurityEventRow): SecurityEvent => ({
  id: row.id,
  userId: row.user_id,
  type: row.type as SecurityEventType,
  method: row.method as EventMethod | null,
  ip: row.ip,
  userAgent: row.user_agent,
  postId: row.post_id === null ? null : Number(row.post_id),
  actorId: row.actor_id === null ? null : Number(row.actor_id),
  details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
  createdAt: toIsoString(row.created_at),
})
