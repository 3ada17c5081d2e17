// A post's wire shape, the same in every version so far (a version that changes it passes its own mapper to posts.routes.ts).
import type { Post } from './post.js'

export function toPostRead(post: Post) {
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
