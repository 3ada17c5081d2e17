// The superusers' read shape of a user, in any state.
import type { FieldValues } from '../content-fields/index.js'
import type { ManagedUser } from '../users/index.js'
import { bannedUntilRead } from '../users/index.js'

/** `fields`: the user's custom fields as superusers read them (every level). */
export const toManagedUserRead = (user: ManagedUser, fields: FieldValues) => ({
  id: user.id,
  name: user.name,
  username: user.username,
  email: user.email,
  age: user.age,
  avatar_url: user.profileImageUrl,
  subscription_tier: user.tierName,
  is_active: user.isActive,
  is_superuser: user.isSuperuser,
  is_verified: user.isVerified,
  is_deleted: user.isDeleted,
  deleted_at: user.deletedAt,
  created_at: user.createdAt,
  updated_at: user.updatedAt,
  banned_until: bannedUntilRead(user),
  ban_reason: user.banReason,
  fields,
})
