// The domain events modules publish and subscribe to (src/shared/event-bus.ts): the one seam
// through which a module learns what happened in another. An event that carries a `unit` is
// published inside that unit of work (src/db/unit-of-work.ts): its handlers write in the same
// transaction, so their rows commit with the change, or not at all.
import type { Unit } from '../db/unit-of-work.js'
import { EventBus } from '../shared/event-bus.js'
import type { ChangeEvent, PostEventType, UserEventType } from './change-events/change-event.js'
import type { MailTemplateName } from './mail/mail.js'
import type { Post } from './posts/post.js'
import type { ClientInfo, SecurityEventType } from './security-events/security-event.js'
import type { User } from './users/user.js'

export interface DomainEventMap {
  /** A user's email address changed, after the change committed (the account module mails both addresses). */
  'user.email_changed': { user: User; previousEmail: string }
  /** Someone signed themselves up (the account module mails a verification link in the same unit). */
  'user.signed_up': { unit: Unit; user: User }
  /** A user was soft-deleted (the posts module hides their posts). */
  'user.soft_deleted': { unit: Unit; userId: number }
  /** A soft-deleted user came back; `deletedAt` is when they had been deleted (posts hidden with them come back). */
  'user.restored': { unit: Unit; userId: number; deletedAt: string | null }
  /** A way to sign in (a passkey, a linked identity) is about to be removed in this unit (the sign-in methods read model refuses the last one). */
  'sign_in_method.removing': { unit: Unit; userId: number }
  /** Something for the security event log happened inside a unit of work. */
  'security.event': { unit: Unit; type: SecurityEventType; userId: number | null; client: ClientInfo | null }
  /** A user was created, changed, verified, deleted, restored or removed: `user` as it is after the change (before, for a removal). */
  'user.changed': { unit: Unit; type: UserEventType; user: User }
  /** A post was created, changed, deleted or removed: `post` as it is after the change (before, for a removal). */
  'post.changed': { unit: Unit; type: PostEventType; post: Post }
  /** Change events are being forwarded (webhooks make their deliveries in the same unit). */
  'change_events.forwarding': { unit: Unit; events: ChangeEvent[] }
  /** A module asks for a mail, queued with its change (the mail module renders and queues it). */
  'mail.requested': { unit: Unit; template: MailTemplateName; to: string; values: Record<string, string> }
}

export class DomainEvents extends EventBus<DomainEventMap> {}
