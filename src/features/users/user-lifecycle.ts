// What other features write in the transaction of a change to a user. They are called, not
// subscribed to: reading UserService shows every write a sign-up, a deletion or a restore makes,
// and the composition (src/services.ts) shows who answers each call.
import type { Unit } from '../../db/unit-of-work.js'
import type { User } from './user.js'

export interface UserLifecycle {
  /** Someone signed themselves up (the account feature queues the verification mail). */
  signedUp(unit: Unit, user: User): Promise<void>
  /** A user was soft-deleted (their posts are hidden, their API keys revoked). */
  softDeleted(unit: Unit, userId: number): Promise<void>
  /** A soft-deleted user came back; `deletedAt` is when they had been deleted (posts hidden with them come back). */
  restored(unit: Unit, userId: number, deletedAt: string | null): Promise<void>
  /** A user is about to be removed for good: a feature may refuse it (the last owner of an organization). */
  removing(unit: Unit, userId: number): Promise<void>
}
