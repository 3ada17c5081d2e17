// What a change to a comment records in its own unit of work, for webhooks and realtime streams.
// The comments slice names its events and the call it needs; the change-events slice implements it.
import type { Unit } from '../../db/unit-of-work.js'
import type { Comment } from './comment.js'

/** A deleted or hidden comment's event carries it as a tombstone: its words never travel on. */
export const COMMENT_EVENT_TYPES = ['comment.created', 'comment.updated', 'comment.deleted', 'comment.hidden'] as const
export type CommentEventType = (typeof COMMENT_EVENT_TYPES)[number]

export interface CommentChangeLog {
  /** `about`: whose comment it is, and its post (the event's subject, which decides who hears it). */
  commentChanged(unit: Unit, type: CommentEventType, comment: Comment, about: { authorId: number | null; postId: number }): Promise<void>
}
