// Whether a way to sign in may go: identities and passkeys ask before removing one, so that an
// account is never left with none (a password reset would still set a password, but only while
// the user can read their mail).
import { DomainError } from '../../shared/errors.js'
import type { SignInMethodsRepository } from './sign-in-methods.repository.js'

export const LAST_SIGN_IN_METHOD = 'Cannot remove the last way to sign in'

export class SignInMethods {
  constructor(private readonly repository: SignInMethodsRepository) {}

  /** 409 last_sign_in_method when the user has no other way in than the one about to go. */
  async assertAnotherWayIn(userId: number): Promise<void> {
    if ((await this.repository.countWaysIn(userId)) <= 1) throw new DomainError('conflict', LAST_SIGN_IN_METHOD, { code: 'last_sign_in_method' })
  }
}
