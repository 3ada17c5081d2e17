// The domain events of this service: what happened, told after the change committed, to
// features that react to it on their own (mail, streams). Nothing inside a unit of work goes
// through here: a write that must commit with a change, or a check that may refuse it, is a
// direct call on a named interface (UserLifecycle, ChangeLog, SignInMethods.assertNotLast,
// MailService.queue), so reading the caller shows it. The reacting slice subscribes in its feature.ts.
import { EventBus } from '../../shared/event-bus.js'
import type { User } from './user.js'

export interface DomainEventMap {
  /** A user's email address changed, after the change committed (the account feature mails both addresses). */
  'user.email_changed': { user: User; previousEmail: string }
  /** A user's address was verified for the first time since it became theirs (an invitation they claimed joins them). */
  'user.email_verified': { user: User }
}

export class DomainEvents extends EventBus<DomainEventMap> {}

/** A domain event carrying a unit of work would be work inside a transaction: a compile error here. */
type CarriesAUnit = { [Type in keyof DomainEventMap]: 'unit' extends keyof DomainEventMap[Type] ? Type : never }[keyof DomainEventMap]
type Assert<Condition extends true> = Condition
export type NoEventCarriesAUnit = Assert<[CarriesAUnit] extends [never] ? true : false>
