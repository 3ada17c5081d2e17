// What a change to a user records in its own unit of work, for webhooks and realtime streams. The
// users feature names its events and the call it needs; the change-events feature implements it.
import type { Unit } from '../../db/unit-of-work.js'
import type { User } from './user.js'

export const USER_EVENT_TYPES = ['user.created', 'user.updated', 'user.email_verified', 'user.deleted', 'user.restored', 'user.removed', 'user.banned', 'user.unbanned'] as const
export type UserEventType = (typeof USER_EVENT_TYPES)[number]

export interface UserChangeLog {
  userChanged(unit: Unit, type: UserEventType, user: User): Promise<void>
}
