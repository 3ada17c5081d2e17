// The user as services take and return it. Rows of the users table (users.table.ts) become
// Users here; each API version maps a User to its own shape (src/api/<version>/mappers.ts).
import type { Actor } from '../../shared/actor.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { FieldLevel, FieldValues, FilterNode } from '../content-fields/index.js'
import { storedFieldsOf } from '../content-fields/index.js'
import type { ManagedUserRow, UserRow } from './users.table.js'

export interface User {
  id: number
  name: string
  username: string
  email: string
  profileImageUrl: string
  /** The stored avatar this user uploaded and owns; never shown, never set by a client. */
  avatarKey: string | null
  tierId: number | null
  tierName: string | null
  age: number | null
  isActive: boolean
  isSuperuser: boolean
  isVerified: boolean
  createdAt: string
  updatedAt: string
  /** Until when the account is banned (BANNED_FOREVER: no end); null when it is not. A past time is no ban. */
  bannedUntil: string | null
  /** Their language (canonical BCP 47), their mail's; null: the default. */
  locale: string | null
  /** Their custom fields as stored, every level: shown only through userFieldLevel's view (user-view.http.ts). */
  storedFields: FieldValues
}

/** What banned_until holds for a ban with no end; the read shapes say "forever". */
export const BANNED_FOREVER = '9999-12-31T23:59:59.000Z'

/** Whether the user is banned at `now` (epoch ms): a ban whose time has passed is lifted. */
export function isBanned(user: { bannedUntil: string | null }, now = Date.now()): boolean {
  return user.bannedUntil !== null && Date.parse(user.bannedUntil) > now
}

/** banned_until as the read shapes give it: null, a time, or "forever". */
export function bannedUntilRead(user: { bannedUntil: string | null }, now = Date.now()): string | null {
  if (!isBanned(user, now)) return null
  return user.bannedUntil === BANNED_FOREVER ? 'forever' : user.bannedUntil
}

/** What an identity provider says about a person who signs up through it. */
export interface ProviderProfile {
  email: string
  /** The provider marks the address verified. */
  emailVerified: boolean
  name: string | undefined
  /** The name they go by there (preferred_username, a GitHub login). */
  username: string | undefined
}

/** The accounts the service owns, by kind (users.kind): everyone else is a `person`. */
export type ServiceAccountKind = 'deleted_author'

/** Stored instead of a hash for an account made through a provider: no password matches it. */
export const NO_PASSWORD = '!'

export interface NewUserInput {
  name: string
  username: string
  email: string
  password: string
  age?: number | null
  /** Their language, as they said it (a BCP 47 tag); else their browser's Accept-Language decides. */
  locale?: string
  /** Their custom fields (declared in CONTENT_SCHEMA, checked by the route's schema). */
  fields?: FieldValues
}

export interface UserChanges {
  name?: string
  username?: string
  email?: string
  age?: number | null
  profileImageUrl?: string
  /** A BCP 47 tag, or null for the default language. */
  locale?: string | null
  /** The user's password, proving it is them: needed to move their email. */
  currentPassword?: string
  /** The custom fields it changes: null takes one away, the others stay. */
  fields?: FieldValues
}

export interface UserSearchFilter {
  name?: string
  age?: number
  isActive: boolean
  /** Matches name or username. */
  text?: string
  /** The list's `filter`, checked. */
  filter?: UserListFilter
}

/** A user list's checked `filter`, and whose private fields it compares (null: everyone's, for superusers). */
export interface UserListFilter {
  expression: FilterNode
  ownerOfPrivate: number | null
}

/** Who sees a user's email: everyone (the documented v1 shape), or only that user and superusers. */
/**
 * The name a user's limits are counted under: ids alone repeat across databases that share one
 * Redis, and the creation time sets them apart.
 */
export function limitIdentity(user: { id: number; createdAt: string }): string {
  return `${user.id}@${user.createdAt}`
}

export type EmailVisibility = 'public' | 'owner'

export function emailVisibleTo(user: User, viewer: Actor | null, visibility: EmailVisibility): boolean {
  return visibility === 'public' || (viewer !== null && (viewer.id === user.id || viewer.isSuperuser))
}

/**
 * Which of a user's custom fields a viewer reads (docs/api.md "Custom fields"): superusers every
 * level, the user themselves their private ones, everyone else the public ones. Every read of a
 * user in version 2 shapes asks here, and a write may set the fields of the writer's level.
 */
export function userFieldLevel(userId: number, viewer: Pick<Actor, 'id' | 'isSuperuser'> | null): FieldLevel {
  if (viewer?.isSuperuser) return 'server'
  return viewer !== null && viewer.id === userId ? 'private' : 'public'
}

/**
 * The level of a user's fields that whoever writes the user (themselves; a logged-in caller
 * creating an account; a superuser) writes, and reads back in the write's answer: a superuser's
 * every level, anyone else's up to private.
 */
export function userWriterLevel(writer: Pick<Actor, 'isSuperuser'> | null | undefined): FieldLevel {
  return writer?.isSuperuser ? 'server' : 'private'
}

/** Who may create accounts: anyone, or only logged-in callers. */
export type SignupPolicy = 'open' | 'authenticated'

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    email: row.email,
    profileImageUrl: row.profile_image_url,
    avatarKey: row.avatar_key,
    tierId: row.tier_id,
    tierName: row.tier_name,
    age: row.age,
    isActive: Boolean(row.is_active),
    isSuperuser: Boolean(row.is_superuser),
    isVerified: Boolean(row.is_verified),
    createdAt: toIsoString(row.created_at),
    updatedAt: toIsoString(row.updated_at),
    bannedUntil: row.banned_until === null ? null : toIsoString(row.banned_until),
    locale: row.locale,
    storedFields: storedFieldsOf(row.fields),
  }
}

/** A user as a superuser manages it: in any state, soft-deleted or not. */
export interface ManagedUser extends User {
  isDeleted: boolean
  deletedAt: string | null
  /** Why a superuser banned the account (null when it is not banned). */
  banReason: string | null
}


/** What the users directory (superusers) shows: a state, a text (an address is matched whole), an indexed order. */
export interface UserDirectoryQuery {
  search?: string
  status: 'live' | 'deleted' | 'all'
  sort: 'id' | 'username' | 'email'
  descending: boolean
}

export function toManagedUser(row: ManagedUserRow): ManagedUser {
  return {
    ...toUser(row),
    isDeleted: Boolean(row.is_deleted),
    deletedAt: row.deleted_at === null ? null : toIsoString(row.deleted_at),
    banReason: isBanned(toUser(row)) ? row.ban_reason : null,
  }
}
