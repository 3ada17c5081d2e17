// Table types for Kysely. SQLite and PostgreSQL return some values differently, so the
// select types are unions and the repositories normalise them:
// - flags are 0/1 in SQLite and booleans in PostgreSQL; both accept 0/1 on write;
// - timestamps are ISO-8601 text in SQLite and Date objects in PostgreSQL; both accept ISO text on write;
// - bigint counts come back from PostgreSQL as strings.
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'

export type Flag = ColumnType<boolean | number, 0 | 1 | undefined, 0 | 1>
export type Timestamp = ColumnType<Date | string, string, string>
export type NullableTimestamp = ColumnType<Date | string | null, string | null | undefined, string | null>

export interface UsersTable {
  id: Generated<number>
  name: string
  username: string
  email: string
  hashed_password: string
  profile_image_url: string
  /** The stored avatar this user uploaded (its name in avatar storage); only uploads set it. */
  avatar_key: string | null
  tier_id: number | null
  age: number | null
  is_active: Flag
  is_superuser: Flag
  is_verified: Flag
  is_deleted: Flag
  deleted_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export interface TiersTable {
  id: Generated<number>
  name: string
  created_at: Timestamp
}

export interface RefreshTokensTable {
  jti: string
  family_id: string
  user_id: number
  expires_at: Timestamp
  used_at: NullableTimestamp
  revoked_at: NullableTimestamp
  created_at: Timestamp
}

export interface SessionsTable {
  /** The refresh-token family id; every token of the session carries it as `sid`. */
  id: string
  user_id: number
  created_at: Timestamp
  last_used_at: Timestamp
  expires_at: Timestamp
  revoked_at: NullableTimestamp
  user_agent: string | null
  ip: string | null
}

export interface UserTokensTable {
  /** SHA-256 of the token; the token itself exists only in the mail that carries it. */
  token_hash: string
  user_id: number
  purpose: 'verify_email' | 'reset_password'
  email: string
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: Timestamp
}

export interface MailOutboxTable {
  id: string
  recipient: string
  subject: string
  text_body: string
  html_body: string
  status: 'pending' | 'sent' | 'failed'
  attempts: Generated<number>
  /** Epoch milliseconds. */
  next_attempt_at: ColumnType<number | string, number, number>
  claimed_by: string | null
  claimed_until: ColumnType<number | string | null, number | null | undefined, number | null>
  last_error: string | null
  created_at: Timestamp
  sent_at: NullableTimestamp
}

export interface SecurityEventsTable {
  id: string
  user_id: number | null
  type: string
  ip: string | null
  user_agent: string | null
  created_at: Timestamp
}

export interface RevokedTokensTable {
  jti: string
  expires_at: Timestamp
}

export interface RateLimitsTable {
  key: string
  count: number
  /** Epoch milliseconds at which the window ends. */
  reset_at: ColumnType<number | string, number, number>
}

export interface RateLimitRulesTable {
  id: Generated<number>
  tier_id: number | null
  route: string
  limit_count: number
  period_seconds: number
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ApiKeysTable {
  id: Generated<number>
  user_id: number
  name: string
  prefix: string
  key_hash: string
  scopes: string
  created_at: Timestamp
  expires_at: NullableTimestamp
  last_used_at: NullableTimestamp
  revoked_at: NullableTimestamp
}

export interface AvatarsTable {
  name: string
  content_type: string
  data: Buffer
  created_at: Timestamp
}

export interface PostsTable {
  id: Generated<number>
  author_id: number
  title: string
  text: string
  media_url: string | null
  is_deleted: Flag
  deleted_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export interface RowCountsTable {
  name: string
  shard: number
  count: ColumnType<number | string, number, number>
}

/** Trigger-maintained totals per UTC day (migration 2026-11-22-04-admin-overview). */
export interface DailyCountsTable {
  name: 'sign_ups' | 'logins'
  /** YYYY-MM-DD, UTC. */
  day: string
  count: ColumnType<number | string, number, number>
}

export interface Database {
  users: UsersTable
  tiers: TiersTable
  refresh_tokens: RefreshTokensTable
  sessions: SessionsTable
  user_tokens: UserTokensTable
  mail_outbox: MailOutboxTable
  security_events: SecurityEventsTable
  revoked_tokens: RevokedTokensTable
  rate_limits: RateLimitsTable
  rate_limit_rules: RateLimitRulesTable
  api_keys: ApiKeysTable
  avatars: AvatarsTable
  posts: PostsTable
  row_counts: RowCountsTable
  daily_counts: DailyCountsTable
}

/** What repositories take as their first argument: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>
