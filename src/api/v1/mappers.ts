// Version 1's shapes of the domain types (SPEC.md section 2: UserRead is exactly six fields).
import type { Post } from '../../modules/posts/post.js'
import type { User, UserChanges } from '../../modules/users/user.js'

/**
 * `showEmail`: whether the reader may see the email (EMAIL_VISIBILITY, see emailShown()). A
 * hidden email is undefined, which the response serializer leaves out. One object literal, no
 * spread inside it: V8 builds a literal that holds a spread through its runtime, 1.4 µs more for
 * a page of ten users (docs/performance.md).
 */
export function toUserReadV1(user: User, showEmail: boolean) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    email: showEmail ? user.email : undefined,
    profile_image_url: user.profileImageUrl,
    tier_id: user.tierId,
  }
}

export function toPostReadV1(post: Post) {
  return {
    id: post.id,
    title: post.title,
    text: post.text,
    media_url: post.mediaUrl,
    author_id: post.authorId,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  }
}

export function fromUserUpdateV1(body: { profile_image_url?: string } & Omit<UserChanges, 'profileImageUrl'>): UserChanges {
  const { profile_image_url: profileImageUrl, ...rest } = body
  return profileImageUrl === undefined ? rest : { ...rest, profileImageUrl }
}
