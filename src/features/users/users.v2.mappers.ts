// Version 2 is the same services seen through other shapes; these functions are the lens
// (posts read the same in every version: common/posts.mappers.ts).
import type { User, UserChanges } from './user.js'

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
    locale: showEmail ? user.locale : undefined,
  }
}

export function fromUserUpdateV2(body: { avatar_url?: string; current_password?: string } & Omit<UserChanges, 'profileImageUrl' | 'currentPassword'>): UserChanges {
  const { avatar_url: avatarUrl, current_password: currentPassword, ...rest } = body
  return { ...rest, ...(avatarUrl === undefined ? {} : { profileImageUrl: avatarUrl }), ...(currentPassword === undefined ? {} : { currentPassword }) }
}
