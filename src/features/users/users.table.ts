// The users table (migrations 2026-11-21-01 and later) and the rows the users feature reads from it.
import type { ColumnType, Generated, Selectable } from 'kysely'

import type { Flag, NullableTimestamp, Timestamp } from '../../db/column-types.js'

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
  /** When the account first proved it reads its mailbox (null: never, so its other ways in are unproven). */
  email_verified_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
  /**
   * Until when the account is banned (the moderation slice sets these; BANNED_FOREVER for a ban
   * with no end), why (superusers read it), the message its owner is shown, who banned it and when.
   */
  banned_until: NullableTimestamp
  ban_reason: string | null
  /** The user's language, a canonical BCP 47 tag; null: the default. */
  locale: ColumnType<string | null, string | null | undefined, string | null>
  ban_message: string | null
  banned_by: number | null
  banned_at: NullableTimestamp
  /** When an account its owner asked to delete is removed for good (the account-deletion slice); null otherwise. */
  deletion_due_at: NullableTimestamp
  /** `person`, or the kind of an account the service owns (`deleted_author`): set only by the service, never from a request. */
  kind: ColumnType<string, string | undefined, string>
  /** Their custom fields (CONTENT_SCHEMA's `users`) as one JSON object: text on SQLite, jsonb on PostgreSQL (migration 2026-12-13-01-user-fields). */
  fields: ColumnType<unknown, string | undefined, string>
}

/** Columns of the users table that make a user (never hashed_password). */
export const USER_TABLE_COLUMNS = [
  'id',
  'name',
  'username',
  'email',
  'profile_image_url',
  'avatar_key',
  'tier_id',
  'age',
  'is_active',
  'is_superuser',
  'is_verified',
  'created_at',
  'updated_at',
  'banned_until',
  'locale',
  'fields',
] as const

/** A users row with its tier's name, as every user read returns it. */
export type UserRow = Pick<Selectable<UsersTable>, (typeof USER_TABLE_COLUMNS)[number]> & { tier_name: string | null }

/** A user in any state, as the superusers' directory reads it. */
export type ManagedUserRow = UserRow & { is_deleted: boolean | number; deleted_at: Date | string | null; ban_reason: string | null }

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    users: UsersTable
  }
}
