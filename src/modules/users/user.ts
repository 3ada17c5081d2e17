// The user as services take and return it. Rows of the users table (users.queries.ts) become
// Users here; each API version maps a User to its own shape (src/api/<version>/mappers.ts).
import type { Actor } from '../../shared/actor.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { ManagedUserRow } from './user-directory.repository.js'
import type { UserRow } from './users.queries.js'

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
}

export interface NewUserInput {
  name: string
  username: string
  email: string
  password: string
  age?: number | null
}

export interface UserChanges {
  name?: string
  username?: string
  email?: string
  age?: number | null
  profileImageUrl?: string
}

export interface UserSearchFilter {
  name?: string
  age?: number
  isActive: boolean
  /** Matches name or username. */
  text?: string
}

/** Who sees a user's email: everyone (the specification's shape), or only that user and superusers. */
export type EmailVisibility = 'public' | 'owner'

export function emailVisibleTo(user: User, viewer: Actor | null, visibility: EmailVisibility): boolean {
  return visibility === 'public' || (viewer !== null && (viewer.id === user.id || viewer.isSuperuser))
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
  }
}

/** A user as a superuser manages it: in any state, soft-deleted or not. */
export interface ManagedUser extends User {
  isDeleted: boolean
  deletedAt: string | null
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
  }
}
