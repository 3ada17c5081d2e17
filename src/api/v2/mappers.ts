// Version 2 is version 1's services seen through other shapes; these functions are the lens.
import type { UserChanges, UserRecord } from '../../modules/users/users.repository.js'
import type { Page } from '../../shared/pagination.js'

export function toUserReadV2(user: UserRecord) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    email: user.email,
    avatar_url: user.profile_image_url,
    subscription_tier: user.tier_name,
    created_at: user.created_at,
    is_verified: user.is_verified,
  }
}

export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { ...page, data: page.data.map(map) }
}

export function fromUserUpdateV2(body: { avatar_url?: string } & Omit<UserChanges, 'profile_image_url'>): UserChanges {
  const { avatar_url: avatarUrl, ...rest } = body
  return avatarUrl === undefined ? rest : { ...rest, profile_image_url: avatarUrl }
}

/** An empty `search` or `name` means no filter. */
export const filled = (text: string | undefined) => (text === undefined || text === '' ? undefined : text)
