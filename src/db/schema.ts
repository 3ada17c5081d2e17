// The database as Kysely sees it: each module describes its own tables beside its repository
// (src/features/<name>/*.table.ts); they are composed here. Shared column types are in
// column-types.ts.
import type { ColumnType, Kysely, Transaction } from 'kysely'

import type { EmailDomainRulesTable } from '../features/abuse/email-domains.table.js'
import type { DailyCountsTable } from '../features/admin/overview.table.js'
import type { ApiKeysTable } from '../features/api-keys/api-keys.table.js'
import type { RefreshTokensTable, RevokedTokensTable, SessionsTable } from '../features/auth/auth.table.js'
import type { SigningKeysTable } from '../features/auth/signing-keys.table.js'
import type { AvatarsTable } from '../features/avatars/avatars.table.js'
import type { ChangeEventsTable } from '../features/change-events/change-events.table.js'
import type { DataExportsTable } from '../features/data-export/data-exports.table.js'
import type { KnownDevicesTable } from '../features/device-alerts/known-devices.table.js'
import type { BlobDeletionsTable, FilesTable, FileVariantsTable, StorageUsageTable } from '../features/files/files.table.js'
import type { UserIdentitiesTable } from '../features/identities/identities.table.js'
import type { MailOutboxTable } from '../features/mail/outbox.table.js'
import type { RecoveryCodesTable, TotpFactorsTable } from '../features/mfa/mfa.table.js'
import type { ImpersonationRequestsTable, ImpersonationsTable } from '../features/moderation/moderation.table.js'
import type { OneTimeSecretsTable } from '../features/one-time-secrets/one-time-secrets.table.js'
import type { OrganizationsTable, OrgInvitationsTable, OrgMembershipsTable } from '../features/orgs/orgs.table.js'
import type { PasskeysTable } from '../features/passkeys/passkeys.table.js'
import type { OrgPostCountsTable, PostsTable } from '../features/posts/posts.table.js'
import type { RateLimitRulesTable, RateLimitsTable } from '../features/rate-limits/rate-limits.table.js'
import type { SecurityEventsTable } from '../features/security-events/security-events.table.js'
import type { TiersTable } from '../features/tiers/tiers.table.js'
import type { UsersTable } from '../features/users/users.table.js'
import type { WebhookDeliveriesTable, WebhooksTable } from '../features/webhooks/webhooks.table.js'

/** Trigger-maintained totals of live rows (migration 2026-11-21-05-row-counts), read by every module that counts. */
export interface RowCountsTable {
  name: string
  shard: number
  count: ColumnType<number | string, number, number>
}

export interface Database {
  users: UsersTable
  known_devices: KnownDevicesTable
  data_exports: DataExportsTable
  impersonations: ImpersonationsTable
  impersonation_requests: ImpersonationRequestsTable
  tiers: TiersTable
  refresh_tokens: RefreshTokensTable
  sessions: SessionsTable
  user_identities: UserIdentitiesTable
  totp_factors: TotpFactorsTable
  recovery_codes: RecoveryCodesTable
  passkeys: PasskeysTable
  mail_outbox: MailOutboxTable
  security_events: SecurityEventsTable
  revoked_tokens: RevokedTokensTable
  rate_limits: RateLimitsTable
  rate_limit_rules: RateLimitRulesTable
  api_keys: ApiKeysTable
  avatars: AvatarsTable
  posts: PostsTable
  org_post_counts: OrgPostCountsTable
  row_counts: RowCountsTable
  daily_counts: DailyCountsTable
  change_events: ChangeEventsTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  one_time_secrets: OneTimeSecretsTable
  signing_keys: SigningKeysTable
  organizations: OrganizationsTable
  org_memberships: OrgMembershipsTable
  org_invitations: OrgInvitationsTable
  files: FilesTable
  file_variants: FileVariantsTable
  storage_usage: StorageUsageTable
  blob_deletions: BlobDeletionsTable
  email_domain_rules: EmailDomainRulesTable
}

/** What repositories take as their first argument: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>
