// Version 2 is the same services seen through other shapes (SPEC.md section 9.4); these
// functions are the lens.
import type { User, UserChanges } from '../../modules/users/user.js'
import { toPostReadV1 } from '../v1/mappers.js'

/** `showEmail`: whether the reader may see the email; hidden, it is left out (see toUserReadV1). */
export function toUserReadV2(user: User, showEmail: boolean) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    email: showEmail ? user.email : undefined,
    avatar_url: user.profileImageUrl,
    subscription_tier: user.tierName,
    created_at: user.createdAt,
    is_verified: user.isVerified,
  }
}

/** A post reads the same in v2 as in v1. */
export const toPostReadV2 = toPostReadV1

export function fromUserUpdateV2(body: { avatar_url?: string } & Omit<UserChanges, 'profileImageUrl'>): UserChanges {
  const { avatar_url: avatarUrl, ...rest } = body
  return avatarUrl === undefined ? rest : { ...rest, profileImageUrl: avatarUrl }
}
