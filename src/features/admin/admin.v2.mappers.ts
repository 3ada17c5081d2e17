// The superusers' read shape of a user, in any state.
import type { ManagedUser } from '../users/index.js'
import { bannedUntilRead } from '../users/index.js'

export const toManagedUserRead = (user: ManagedUser) => ({
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
})
