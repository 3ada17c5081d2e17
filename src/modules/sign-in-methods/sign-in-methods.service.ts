// Whether a way to sign in may go: identities and passkeys announce each removal in its unit of
// work ('sign_in_method.removing'), and the removal is refused when it would leave the account
// with none (a password reset would still set a password, but only while the user can read their
// mail). The user's row is locked first, so two removals at once are counted one after the other.
import { DomainError } from '../../shared/errors.js'
import type { DomainEvents } from '../domain-events.js'
import type { SignInMethodsRepository } from './sign-in-methods.repository.js'

export const LAST_SIGN_IN_METHOD = 'Cannot remove the last way to sign in'

export class SignInMethods {
  constructor(
    private readonly repository: SignInMethodsRepository,
    domainEvents: DomainEvents,
  ) {
    // 409 last_sign_in_method when the user has no other way in than the one about to go.
    domainEvents.subscribe('sign_in_method.removing', async ({ unit, userId }) => {
      const ways = this.repository.in(unit)
      await ways.lockWaysIn(userId)
      if ((await ways.countWaysIn(userId)) <= 1) throw new DomainError('conflict', LAST_SIGN_IN_METHOD, { code: 'last_sign_in_method' })
    })
  }
}
