// Whether a way to sign in may go: identities and passkeys ask before each removal, in its unit
// of work (assertNotLast), and the removal is refused when it would leave the account with none (a password reset would still set a password, but only while the user can read their
// mail). The user's row is locked first, so two removals at once are counted one after the other.
import type { Unit } from '../../db/unit-of-work.js'
import { DomainError } from '../../shared/errors.js'
import type { SignInMethodsRepository } from './sign-in-methods.repository.js'

export const LAST_SIGN_IN_METHOD = 'Cannot remove the last way to sign in'

export class SignInMethods {
  constructor(
    private readonly repository: SignInMethodsRepository,
  ) {}

  /** 409 last_sign_in_method when the user has no other way in than the one about to go, in the unit that removes it. */
  async assertNotLast(unit: Unit, userId: number): Promise<void> {
    const ways = this.repository.in(unit)
    await ways.lockWaysIn(userId)
    if ((await ways.countWaysIn(userId)) <= 1) throw new DomainError('conflict', LAST_SIGN_IN_METHOD, { code: 'last_sign_in_method' })
  }
}
