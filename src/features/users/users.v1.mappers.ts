// Version 1's shapes of the domain types (docs/api.md: v1's UserRead is exactly six fields).
import type { User, UserChanges } from './user.js'
import type { UserSight } from './user-view.http.js'

/**
 * `sight.email`: whether the reader may see the email (EMAIL_VISIBILITY, see userSight()). A
 * hidden email is undefined, which the response serializer leaves out. One object literal, no
 * spread inside it: V8 builds a literal that holds a spread through its slow runtime path
 * (docs/performance.md).
 */
export function toUserReadV1(user: User, sight: Pick<UserSight, 'email'>) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    email: sight.email ? user.email : undefined,
    profile_image_url: user.profileImageUrl,
    tier_id: user.tierId,
  }
}

export function fromUserUpdateV1(body: { profile_image_url?: string; current_password?: string } & Omit<UserChanges, 'profileImageUrl' | 'currentPassword'>): UserChanges {
  const { profile_image_url: profileImageUrl, current_password: currentPassword, ...rest } = body
  return { ...rest, ...(profileImageUrl === undefined ? {} : { profileImageUrl }), ...(currentPassword === undefined ? {} : { currentPassword }) }
}
