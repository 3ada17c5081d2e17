// The account lifecycle: email verification, password reset and change, the mail each one
// sends. A token is random (256 bits), stored as its SHA-256, and written in the same
// transaction as the outbox message that carries it: the mail holds the only copy.
import { randomBytes } from 'node:crypto'
import type { MailConfig } from '../../config.js'
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, assertSuperuser } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { AuthService, TokenCaller } from '../auth/auth.service.js'
import type { MailService } from '../mail/mail.service.js'
import type { ClientInfo } from '../security-events/security-event.js'
import type { SecurityEventService } from '../security-events/security-events.service.js'
import { assertAcceptablePassword } from '../users/password-policy.js'
import type { User } from '../users/user.js'
import type { UserService } from '../users/users.service.js'
import * as tokens from './user-tokens.repository.js'
import type { TokenPurpose } from './user-tokens.repository.js'

export const INVALID_OR_EXPIRED_TOKEN = 'Invalid or expired token'
export const INCORRECT_PASSWORD = 'Incorrect password'

const hashToken = hashedKey
const invalidToken = () => new DomainError('invalid', INVALID_OR_EXPIRED_TOKEN)

function duration(minutes: number): string {
  if (minutes % 60 !== 0) return `${minutes} minutes`
  const hours = minutes / 60
  return hours === 1 ? '1 hour' : `${hours} hours`
}

export class AccountService {
  constructor(
    private readonly db: Executor,
    private readonly users: UserService,
    private readonly auth: AuthService,
    private readonly mail: MailService,
    private readonly events: SecurityEventService,
    private readonly config: MailConfig,
  ) {}

  /** Mails a verification link; false (and no mail) when the address is verified already. */
  async requestEmailVerification(user: User): Promise<boolean> {
    if (user.isVerified) return false
    await this.sendVerification(user, user.email)
    return true
  }

  /** A superuser resends a live user's verification link; false (and no mail) when it is verified already. */
  async resendEmailVerification(actor: Actor, userId: number): Promise<boolean> {
    assertSuperuser(actor)
    return this.requestEmailVerification(await this.users.get(userId))
  }

  async confirmEmail(token: string, client: ClientInfo): Promise<void> {
    const used = await tokens.consumeUserToken(this.db, hashToken(token), 'verify_email')
    // A link sent to an address the user has since changed proves nothing about the new one.
    if (!used || !(await this.users.markEmailVerified(used.user_id, used.email))) throw invalidToken()
    await this.events.record('email_verified', used.user_id, client)
  }

  /** Mails a reset link when the address belongs to a live, active account; says nothing either way. */
  async requestPasswordReset(email: string, client: ClientInfo): Promise<void> {
    const user = await this.users.findActiveByEmail(email)
    if (!user) return
    await this.db.transaction().execute(async (trx) => {
      const token = await this.issueToken(trx, user, 'reset_password', user.email, this.config.resetMinutes)
      await this.mail.enqueue(trx, 'reset-password', user.email, {
        name: user.name,
        link: this.link(this.config.resetPasswordUrl, '/account/reset-password', token),
        valid_for: duration(this.config.resetMinutes),
      })
      await this.events.record('password_reset_requested', user.id, client, trx)
    })
    this.mail.kick()
  }

  /** Sets the new password, ends every session of the user, and marks the email verified (they read it). */
  async confirmPasswordReset(token: string, newPassword: string, client: ClientInfo): Promise<void> {
    const hash = hashToken(token)
    const usable = await tokens.findUsableUserToken(this.db, hash, 'reset_password')
    const user = usable && (await this.users.find(usable.user_id))
    if (!usable || !user || !user.isActive) throw invalidToken()
    // A refused password (422) leaves the link usable for a better one.
    assertAcceptablePassword(newPassword, user)
    const used = await tokens.consumeUserToken(this.db, hash, 'reset_password')
    if (!used) throw invalidToken()
    await this.users.setPassword(user, newPassword)
    await this.users.markEmailVerified(user.id, used.email)
    await this.auth.revokeSessionsOf(user.id, client)
    await this.events.record('password_reset', user.id, client)
  }

  /** Changes the caller's password and ends every other session of theirs. */
  async changePassword(caller: TokenCaller, currentPassword: string, newPassword: string, client: ClientInfo): Promise<void> {
    if (!(await this.users.passwordMatches(caller.user.id, currentPassword))) throw new DomainError('invalid', INCORRECT_PASSWORD)
    await this.users.setPassword(caller.user, newPassword)
    await this.auth.revokeSessionsOf(caller.user.id, client, caller.token.sessionId)
    await this.events.record('password_changed', caller.user.id, client)
  }

  /** After an email change: a verification link to the new address, a notice to the old one. */
  async emailChanged(user: User, previousEmail: string): Promise<void> {
    await this.sendVerification(user, user.email, async (trx) => {
      await this.mail.enqueue(trx, 'email-changed', previousEmail, { name: user.name, email: previousEmail, new_email: user.email })
      await this.events.record('email_changed', user.id, null, trx)
    })
  }

  prune(): Promise<void> {
    return tokens.deleteExpiredUserTokens(this.db)
  }

  private async sendVerification(user: User, email: string, alsoInTransaction?: (trx: Executor) => Promise<void>): Promise<void> {
    const minutes = this.config.verificationHours * 60
    await this.db.transaction().execute(async (trx) => {
      const token = await this.issueToken(trx, user, 'verify_email', email, minutes)
      await this.mail.enqueue(trx, 'verify-email', email, {
        name: user.name,
        email,
        link: this.link(this.config.verifyEmailUrl, '/account/verify-email', token),
        valid_for: duration(minutes),
      })
      await alsoInTransaction?.(trx)
    })
    this.mail.kick()
  }

  private async issueToken(trx: Executor, user: User, purpose: TokenPurpose, email: string, minutes: number): Promise<string> {
    const token = randomBytes(32).toString('base64url')
    await tokens.retireUserTokens(trx, user.id, purpose)
    await tokens.insertUserToken(trx, { hash: hashToken(token), userId: user.id, purpose, email, expiresAt: new Date(Date.now() + minutes * 60_000) })
    return token
  }

  /** The frontend's link template ({token}) when configured, else the service's own page. */
  private link(template: string | undefined, page: string, token: string): string {
    const encoded = encodeURIComponent(token)
    return template ? template.replaceAll('{token}', encoded) : `${this.config.publicUrl}${page}?token=${encoded}`
  }
}
