// What a change to a post records in its own unit of work, for webhooks and realtime streams. The
// posts feature names its events and the call it needs; the change-events feature implements it.
import type { Unit } from '../../db/unit-of-work.js'
import type { Post } from './post.js'

/**
 * `post.published` follows the `post.updated` of a change that publishes a draft (or the
 * publishing job's, for a scheduled post), `post.scheduled` the `post.created` or `post.updated`
 * that gives a post its time to go out; `post.trashed`
 * follows the `post.deleted` of a delete into the trash, and `post.restored` brings it back;
 * `post.reactions_changed` is the reactions slice's, coalesced (one for many reactions).
 */
export const POST_EVENT_TYPES = ['post.created', 'post.updated', 'post.published', 'post.scheduled', 'post.deleted', 'post.trashed', 'post.restored', 'post.removed', 'post.reactions_changed'] as const
export type PostEventType = (typeof POST_EVENT_TYPES)[number]

export interface PostChangeLog {
  postChanged(unit: Unit, type: PostEventType, post: Post): Promise<void>
}
