// Version 2 is the same services seen through other shapes; these functions are the lens
// (posts read the same in every version: common/posts.mappers.ts).
import type { CollectionFields } from '../content-fields/index.js'
import type { User, UserChanges } from './user.js'
import type { UserSight } from './user-view.http.js'

/** `sight`: whether the reader may see the email (hidden, it is left out: see toUserReadV1) and which custom fields. */
export function toUserReadV2(user: User, sight: UserSight) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    email: sight.email ? user.email : undefined,
    avatar_url: user.profileImageUrl,
    subscription_tier: user.tierName,
    created_at: user.createdAt,
    is_verified: user.isVerified,
    locale: sight.email ? user.locale : undefined,
    fields: sight.fields,
  }
}

/**
 * A user as they themselves read it: the email and the public and private fields, never the
 * server ones. What their data export and their change events (read by them and superusers) carry.
 */
export function toOwnUserReadV2(user: User, fields: CollectionFields) {
  return toUserReadV2(user, { email: true, fields: fields.view(user.storedFields, 'private') })
}

export function fromUserUpdateV2(body: { avatar_url?: string; current_password?: string } & Omit<UserChanges, 'profileImageUrl' | 'currentPassword'>): UserChanges {
  const { avatar_url: avatarUrl, current_password: currentPassword, ...rest } = body
  return { ...rest, ...(avatarUrl === undefined ? {} : { profileImageUrl: avatarUrl }), ...(currentPassword === undefined ? {} : { currentPassword }) }
}
