// How many login attempts a client may make: the one place login is throttled (and, through
// it, anything else that guesses an account's password). A browser holding a valid device token
// for the account it logs in to has a budget of its own (OWASP's device cookie: a stranger's
// guesses cannot lock the owner out); any other client is counted per address and per account.
import { hashedKey } from '../../shared/hashed-key.js'
import type { LimitBucket, RateLimitService } from '../rate-limits/index.js'
import type { UserService } from '../users/index.js'
import { loginAccountKey } from '../users/index.js'
import type { TokenService } from './tokens.js'

export class LoginThrottle {
  constructor(
    private readonly users: UserService,
    private readonly tokens: TokenService,
    private readonly limits: RateLimitService,
  ) {}

  /** Counts one attempt to log in as `login` from `address`; 429 once a budget is spent, 503 while the counters are away. */
  async count(login: string, deviceToken: string | undefined, address: string): Promise<void> {
    await this.limits.consumeBuckets(await this.bucketsOf(login, deviceToken, address))
  }

  /** Counts one passkey sign-in attempt from `address` (the login's address budget): a flood of forged answers is cut short. */
  async countPasskey(address: string): Promise<void> {
    await this.limits.consumeBuckets([['login-address', address]])
  }

  /**
   * Counts one second-factor attempt (a code after a first factor) for the account; the same
   * device rule as login, so a stranger holding the password cannot spend the owner's budget.
   */
  async countSecondFactor(accountIdentity: string, userId: number, deviceToken: string | undefined, address: string): Promise<void> {
    const device = deviceToken === undefined ? undefined : await this.tokens.verifyDevice(deviceToken)
    if (device && device.userId === userId) return this.limits.consumeBuckets([['mfa-device', hashedKey(device.deviceId)]])
    return this.limits.consumeBuckets([
      ['mfa-address', address],
      ['mfa-account', loginAccountKey(accountIdentity)],
    ])
  }

  /**
   * The account is the one the name resolves to, or the normalised name when none matches.
   * Keys are hashed, so any login name makes a key of bounded length.
   */
  private async bucketsOf(login: string, deviceToken: string | undefined, address: string): Promise<[LimitBucket, string][]> {
    const name = login.trim().toLowerCase()
    const [account, device] = await Promise.all([
      this.users.findLoginAccount(name),
      deviceToken === undefined ? undefined : this.tokens.verifyDevice(deviceToken),
    ])
    if (device && account && device.userId === account.id) return [['login-device', hashedKey(device.deviceId)]]
    return [
      ['login-address', address],
      ['login-account', account ? loginAccountKey(account.identity) : hashedKey(`name:${name}`)],
    ]
  }
}
