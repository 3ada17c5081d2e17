// A comment's wire shape (version 2).
import { NO_REACTIONS } from '../reactions/index.js'
import type { Comment, CommentStatus } from './comment.js'

export function toCommentRead(comment: Comment): CommentReadShape & { reaction_counts: Record<string, number>; my_reactions: string[] } {
  const reactions = comment.reactions ?? NO_REACTIONS
  return {
    id: comment.id,
    post_id: comment.postId,
    parent_id: comment.parentId,
    author_id: comment.authorId,
    text: comment.text,
    status: comment.status,
    hidden_reason: comment.hiddenReason,
    reply_count: comment.replyCount,
    reaction_counts: reactions.counts,
    my_reactions: reactions.mine,
    edited_at: comment.editedAt,
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
  }
}

/** A comment in a change event's data: without a reader's view of its reactions. */
export const toCommentEventRead = (comment: Comment): CommentReadShape => {
  const { reaction_counts: _counts, my_reactions: _mine, ...shape } = toCommentRead(comment)
  return shape
}

/** A top-level comment of a page of threads, with its first replies. */
export const toThreadRead = (comment: Comment) => ({ ...toCommentRead(comment), replies: (comment.replies ?? []).map(toCommentRead) })

export interface CommentReadShape {
  id: number
  post_id: number
  parent_id: number | null
  author_id: number | null
  text: string | null
  status: CommentStatus
  hidden_reason: string | null
  reply_count: number
  edited_at: string | null
  created_at: string
  updated_at: string
}
