// Every guess at an account's password outside login (a password change, an email change) spends
// the account's and the address's login budgets, so guessing there is no cheaper than at login.
// Apart from LoginThrottle so that the users feature can count its own checks without depending
// on login (which depends on users).
import { hashedKey } from '../../shared/hashed-key.js'
import type { RateLimitService } from '../rate-limits/index.js'

/** The login-account bucket's key for an account's limit identity (LoginThrottle counts logins under the same). */
export const loginAccountKey = (accountIdentity: string) => hashedKey(`user:${accountIdentity}`)

export class PasswordGuesses {
  constructor(private readonly limits: RateLimitService) {}

  /** Counts one guess at the account's password from `address`; 429 once a budget is spent. */
  async count(accountIdentity: string, address: string): Promise<void> {
    await this.limits.consumeBuckets([
      ['login-address', address],
      ['login-account', loginAccountKey(accountIdentity)],
    ])
  }
}
