// What changed, as listeners (webhooks, realtime streams) receive it: `{type, timestamp, data}`
// with `data` in version 2's read shape of the user, post, organization or membership. A user's
// events go to that user and to superusers; posts are public, so their events go to anyone; an
// organization's go to its members (and a membership's to its user too).
import { toIsoString } from '../../shared/timestamps.js'
import type { CommentEventType } from '../comments/index.js'
import { COMMENT_EVENT_TYPES } from '../comments/index.js'
import type { FileEventType } from '../files/index.js'
import { FILE_EVENT_TYPES } from '../files/index.js'
import type { OrgEventType } from '../orgs/index.js'
import { ORG_EVENT_TYPES } from '../orgs/index.js'
import type { PostEventType } from '../posts/index.js'
import { POST_EVENT_TYPES } from '../posts/index.js'
import type { UserEventType } from '../users/index.js'
import { USER_EVENT_TYPES } from '../users/index.js'
import type { ChangeEventRow } from './change-events.table.js'

/** Every event a change can produce, the catalogue webhooks subscribe from. */
export const CHANGE_EVENT_TYPES = [...USER_EVENT_TYPES, ...POST_EVENT_TYPES, ...COMMENT_EVENT_TYPES, ...ORG_EVENT_TYPES, ...FILE_EVENT_TYPES] as const

export type { CommentEventType, FileEventType, OrgEventType, PostEventType, UserEventType }
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number]

export interface ChangeEvent {
  /** Ascending in the order events were written (the realtime stream's event id). */
  id: number
  /** The same for every endpoint and every retry (webhook-id). */
  messageId: string
  type: ChangeEventType
  /** `user:12`, `post:7`. */
  subject: string
  /** Whose event it is: the user, or the post's author. */
  userId: number | null
  timestamp: string
  data: unknown
}

/** The body listeners receive. */
export function eventBody(event: Pick<ChangeEvent, 'type' | 'timestamp' | 'data'>): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data })
}

export function toChangeEvent(row: ChangeEventRow): ChangeEvent {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    type: row.type as ChangeEventType,
    subject: row.subject,
    userId: row.user_id === null ? null : Number(row.user_id),
    timestamp: toIsoString(row.created_at),
    data: JSON.parse(row.data) as unknown,
  }
}
