// Refuses a new password found in breaches (sign-up, change, reset, a superuser setting one),
// and tells a login that the password it used is breached. An unreachable list is let through
// (BREACHED_PASSWORDS_FAIL=open) or refused with 503 (closed); either way a security event
// records it.
import type { Logger } from '../../logger.js'
import { DomainError } from '../../shared/errors.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { BreachList } from './breached-passwords.js'

export const passwordBreached = (count: number) => `This password has appeared in ${count} data breaches: choose another`

/** What PasswordScreen is built from. */
export interface PasswordScreenDependencies {
  list: BreachList | undefined
  failMode: 'open' | 'closed'
  securityEvents: SecurityEventService
  logger: Logger
  refused?: () => void
}

export class PasswordScreen {
  private readonly list: BreachList | undefined
  private readonly failMode: 'open' | 'closed'
  private readonly securityEvents: SecurityEventService
  private readonly logger: Logger
  private readonly refused: () => void

  constructor(dependencies: PasswordScreenDependencies) {
    this.list = dependencies.list
    this.failMode = dependencies.failMode
    this.securityEvents = dependencies.securityEvents
    this.logger = dependencies.logger
    this.refused = dependencies.refused ?? (() => {})
  }

  /**
   * 400 `password_breached` with `breach_count` for a password in the list. A list out of reach
   * lets it through with BREACHED_PASSWORDS_FAIL=open or `whenReachable`, else 503.
   */
  async assertNotBreached(password: string, userId: number | null, options: { whenReachable?: boolean } = {}): Promise<void> {
    if (!this.list) return
    let seen: number
    try {
      seen = await this.list.timesSeen(password)
    } catch (error) {
      this.logger.warn({ err: error }, 'the breached-password list could not be reached')
      await this.securityEvents.record('breached_password_check_failed', userId, null)
      if (this.failMode === 'closed' && options.whenReachable !== true) {
        throw new DomainError('unavailable', 'The breached-password list cannot be reached (BREACHED_PASSWORDS_FAIL=closed)', { code: 'service_unavailable', retryAfterSeconds: 5 })
      }
      return
    }
    if (seen === 0) return
    this.refused()
    await this.securityEvents.record('password_breached_refused', userId, null)
    throw new DomainError('invalid', passwordBreached(seen), { code: 'password_breached', fields: { breach_count: seen } })
  }

  /** For a login that succeeded: whether its password is breached (false when the list cannot say). */
  async isBreached(password: string): Promise<boolean> {
    if (!this.list) return false
    try {
      return (await this.list.timesSeen(password)) > 0
    } catch {
      return false
    }
  }
}
