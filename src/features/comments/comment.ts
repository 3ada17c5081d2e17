// A comment as services take and return it, and how one reads to a given viewer.
import { toIsoString } from '../../shared/timestamps.js'
import type { ReactionSummary } from '../reactions/index.js'
import type { CommentRow } from './comments.table.js'

/** visible; hidden by a moderator (with a reason); deleted by its author; removed by a superuser. */
export const COMMENT_STATUSES = ['visible', 'hidden', 'deleted', 'removed'] as const
export type CommentStatus = (typeof COMMENT_STATUSES)[number]

export interface Comment {
  id: number
  postId: number
  /** Null where the viewer may not know it (a deleted, removed, or hidden-from-them comment). */
  authorId: number | null
  /** The top-level comment it answers; null for a top-level comment. */
  parentId: number | null
  /** Null where the viewer may not read it: the thread keeps its place, its words are gone. */
  text: string | null
  status: CommentStatus
  /** Why a moderator hid it: told to its author and the moderators only. */
  hiddenReason: string | null
  replyCount: number
  /** Its reactions of every kind (kept by the database). */
  reactionCount: number
  /** Its reactions by kind and the reader's own, where they were read. */
  reactions?: ReactionSummary
  editedAt: string | null
  createdAt: string
  updatedAt: string
  /** A top-level comment's first replies, where a page of threads read them. */
  replies?: Comment[]
}

/** Who is looking at a post's comments: whether they see hidden ones (its moderators), and who they are. */
export interface CommentViewer {
  userId: number | null
  /** The post's author, its organization's admins and owners, and superusers (post-policy.ts mayModerateComments). */
  moderates: boolean
}

/** The row as it stands (what rules decide on), before it is shown to anyone. */
export function toStoredComment(row: CommentRow): Comment & { text: string; hiddenWithAuthor: boolean } {
  return {
    id: row.id,
    postId: row.post_id,
    authorId: row.author_id,
    parentId: row.parent_id,
    text: row.text,
    status: row.status as CommentStatus,
    hiddenReason: row.hidden_reason,
    replyCount: Number(row.reply_count),
    reactionCount: Number(row.reaction_count),
    editedAt: row.edited_at === null ? null : toIsoString(row.edited_at),
    createdAt: toIsoString(row.created_at),
    updatedAt: toIsoString(row.updated_at),
    hiddenWithAuthor: Boolean(row.is_deleted),
  }
}

/**
 * The comment as the viewer reads it. One deleted, removed or hidden with its author's account is
 * a tombstone to everyone (`deleted`, `removed`): no author, no text. One hidden by a moderator is
 * read whole, with the reason, by its author and the moderators; to anyone else it is a tombstone
 * marked `hidden`.
 */
export function asSeenBy(row: CommentRow, viewer: CommentViewer): Comment {
  const stored = toStoredComment(row)
  const { hiddenWithAuthor: _hidden, ...comment } = stored
  if (stored.hiddenWithAuthor) return { ...comment, status: 'deleted', authorId: null, text: null, hiddenReason: null }
  if (stored.status === 'deleted' || stored.status === 'removed') return { ...comment, authorId: null, text: null, hiddenReason: null }
  if (stored.status === 'hidden' && !viewer.moderates && viewer.userId !== stored.authorId) return { ...comment, authorId: null, text: null, hiddenReason: null }
  return stored.status === 'hidden' ? comment : { ...comment, hiddenReason: null }
}
