// The account lifecycle: email verification, password reset and change, the mail each one
// sends. A link's token comes from the one-time secret store (256 random bits, kept as its
// SHA-256) and is written in the same transaction as the outbox message that carries it: the
// mail holds the only copy.
import type { MailConfig } from '../../config.js'
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { BackgroundWork } from '../../shared/background-work.js'
import { assertSuperuser, DomainError, invalidToken } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import { mailedLink } from '../../shared/mailed-link.js'
import type { ApiKeyService } from '../api-keys/index.js'
import type { AuthService, BrowserSession, TokenCaller } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration } from '../mail/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { AccountRecovery, EndedWaysIn, KeptWaysIn, WaysIn } from '../recovery/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { NewUserInput, User, UserService } from '../users/index.js'
import { incorrectPassword } from '../users/index.js'

/** What a mailed account link is for. */
type LinkPurpose = 'verify_email' | 'reset_password' | 'undo_email_change'
/** A mailed link remembers the address it went to: verifying it verifies that address only. */
interface LinkData {
  email: string
}

/** What a password change did to the caller's API keys. */
export interface PasswordChanged {
  revokedApiKeys: number
  liveApiKeys: number
}

/** A sign-up, and the session it opened when the new user was logged in at once. */
export interface SignedUp {
  user: User
  session?: BrowserSession
}

/** How long the previous address can undo an email change. */
const UNDO_EMAIL_CHANGE_MINUTES = 7 * 24 * 60

/** What AccountService is built from. */
export interface AccountServiceDependencies {
  secrets: OneTimeSecrets
  unitOfWork: UnitOfWork
  users: UserService
  auth: AuthService
  apiKeys: ApiKeyService
  recovery: AccountRecovery
  mail: MailService
  events: SecurityEventService
  limits: RateLimitService
  config: MailConfig
  onBackgroundError: (error: unknown) => void
}

export class AccountService {
  private readonly afterAnswer: BackgroundWork
  private readonly links: Record<LinkPurpose, SecretKind<LinkData>>

  private readonly unitOfWork: UnitOfWork
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly apiKeys: ApiKeyService
  private readonly recovery: AccountRecovery
  private readonly mail: MailService
  private readonly events: SecurityEventService
  private readonly limits: RateLimitService
  private readonly config: MailConfig

  constructor(dependencies: AccountServiceDependencies) {
    this.unitOfWork = dependencies.unitOfWork
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.apiKeys = dependencies.apiKeys
    this.recovery = dependencies.recovery
    this.mail = dependencies.mail
    this.events = dependencies.events
    this.limits = dependencies.limits
    this.config = dependencies.config
    const secrets = dependencies.secrets
    const onBackgroundError = dependencies.onBackgroundError
    this.afterAnswer = new BackgroundWork(onBackgroundError)
    // A newer verification or reset link retires the older ones; undo links stay, so that a
    // second change by an intruder cannot take the owner's link away.
    this.links = {
      verify_email: secrets.kind<LinkData>('verify_email', { seconds: this.config.verificationHours * 3600, replacesEarlier: true }),
      reset_password: secrets.kind<LinkData>('reset_password', { seconds: this.config.resetMinutes * 60, replacesEarlier: true }),
      undo_email_change: secrets.kind<LinkData>('undo_email_change', { seconds: UNDO_EMAIL_CHANGE_MINUTES * 60 }),
    }
  }

  /**
   * Someone signs themselves up (the users feature's rules, event and mail) and, with `logIn`,
   * gets the session a login would open, device cookie included.
   */
  async signUp(input: NewUserInput, client: ClientInfo, options: { logIn: boolean }): Promise<SignedUp> {
    const user = await this.users.signUp(input, client)
    if (!options.logIn) return { user }
    return { user, session: await this.auth.startBrowserSession(user.id, client, 'password') }
  }

  /** A new sign-up's verification link, queued in the sign-up's own transaction (the outbox sends it shortly after). */
  async welcome(unit: Unit, user: User): Promise<void> {
    // An identity provider may have vouched for the address already.
    if (!this.config.verifyOnSignUp || user.isVerified) return
    await this.queueVerification(unit, user, user.email)
  }

  /** Mails a verification link; false (and no mail) when the address is verified already. */
  async requestEmailVerification(user: User): Promise<boolean> {
    if (user.isVerified) return false
    await this.sendVerification(user, user.email)
    return true
  }

  /**
   * Mails a verification link to the live account that uses `email`, if it is not verified yet
   * (an invitee's page asks for it): the same answer whether or not such an account exists, and
   * the verification-mail limits count as for any request (a request past them sends nothing).
   */
  async requestVerificationOfAddress(email: string): Promise<void> {
    const user = await this.users.findActiveByEmail(email)
    if (!user || user.isVerified) return
    try {
      await this.sendVerification(user, user.email)
    } catch (error) {
      // Past the limits, nothing is sent, and the answer is still the same.
      if (!(error instanceof DomainError && error.kind === 'rate_limited')) throw error
    }
  }

  /** A superuser resends a live user's verification link; false (and no mail) when it is verified already. */
  async resendEmailVerification(actor: Actor, userId: number): Promise<boolean> {
    assertSuperuser(actor)
    return this.requestEmailVerification(await this.users.get(userId))
  }

  async confirmEmail(token: string, client: ClientInfo): Promise<void> {
    const used = await this.links.verify_email.spend(token)
    // A link sent to an address the user has since changed proves nothing about the new one.
    if (!used?.userId || !(await this.users.markEmailVerified(used.userId, used.data.email))) throw invalidToken()
    await this.events.record('email_verified', used.userId, client)
  }

  /**
   * Mails a reset link when the address belongs to a live, active account; says nothing either
   * way. Limited per client address and per email (429), whether or not an account uses it.
   * Whether an account uses the address is looked up after the answer (`settle()` waits for
   * it), so a registered and an unknown address take the same time to answer.
   */
  async requestPasswordReset(email: string, client: ClientInfo): Promise<void> {
    await this.limits.consumeBuckets([
      ['password-reset-address', client.ip ?? ''],
      ['password-reset-email', hashedKey(email.trim().toLowerCase())],
    ])
    this.afterAnswer.start(() => this.mailResetLink(email, client))
  }

  /** Resolves once the work started after an answer (reset links) is done: shutdown waits for it. */
  settle(): Promise<void> {
    return this.afterAnswer.settle()
  }

  private async mailResetLink(email: string, client: ClientInfo): Promise<void> {
    const user = await this.users.findActiveByEmail(email)
    if (!user) return
    await this.unitOfWork.run(async (unit) => {
      const token = await this.issueLink(unit, user, 'reset_password', user.email)
      const values = { name: user.name, link: this.link(this.config.resetPasswordUrl, '/account/reset-password', token), valid_for: duration(this.config.resetMinutes) }
      await this.mail.queue(unit, { template: 'reset-password', to: user.email, locale: user.locale, values })
      await this.events.record('password_reset_requested', user.id, client, { unit })
    })
  }

  /**
   * Every way into the account a live reset link belongs to, for its owner to choose what to keep
   * before resetting (the link is not spent). 400 `invalid_token` for a dead link.
   */
  async waysInForReset(token: string): Promise<WaysIn> {
    return this.recovery.waysIn((await this.resettableUser(token)).id)
  }

  /**
   * Sets the new password, marks the email verified (they read it), and recovers the account:
   * every session and API key ends, and every passkey and identity not in `keep` (whoever took
   * the account may have added them); an account that had never proved its mailbox loses its
   * second factor too (AccountRecovery).
   */
  async confirmPasswordReset(token: string, newPassword: string, client: ClientInfo, keep?: KeptWaysIn): Promise<EndedWaysIn> {
    const user = await this.resettableUser(token)
    // A refused password (422) leaves the link usable for a better one.
    await this.users.assertAcceptablePassword(newPassword, user, 'new_password', user.id)
    const used = await this.links.reset_password.spend(token)
    if (!used || used.userId !== user.id) throw invalidToken()
    const adopting = !(await this.users.hasProvedMailbox(user.id))
    await this.users.setPassword(user, newPassword)
    await this.users.markEmailVerified(user.id, used.data.email)
    const ended = await this.recovery.recover(user, client, 'password_reset', { adopting, passwordReplaced: true, ...(keep ? { keep } : {}) })
    await this.links.verify_email.retire(user.id)
    await this.events.record('password_reset', user.id, client)
    return ended
  }

  private async resettableUser(token: string): Promise<User> {
    const usable = await this.links.reset_password.peek(token)
    const user = usable?.userId && (await this.users.find(usable.userId))
    if (!user || !user.isActive) throw invalidToken()
    return user
  }

  /**
   * Changes the caller's password and ends every other session of theirs, and every link mailed
   * before (reset, verification). API keys are kept unless asked: the answer says how many still
   * work. Each try spends the account's login budget.
   */
  async changePassword(caller: TokenCaller, currentPassword: string, newPassword: string, client: ClientInfo, options: { revokeApiKeys: boolean }): Promise<PasswordChanged> {
    if (!(await this.users.checkPassword(caller.user, currentPassword, client))) throw incorrectPassword()
    await this.users.setPassword(caller.user, newPassword)
    await this.auth.revokeSessionsOf(caller.user.id, client, caller.token.sessionId)
    await this.retireMailedLinks(caller.user.id)
    await this.events.record('password_changed', caller.user.id, client)
    const revokedApiKeys = options.revokeApiKeys ? await this.apiKeys.revokeAllOf(caller.user.id) : 0
    return { revokedApiKeys, liveApiKeys: await this.apiKeys.countLiveOf(caller.user.id) }
  }

  /**
   * Undoes an email change from the link mailed to the previous address: the address comes back
   * (verified: its owner followed the link), the account is recovered (every session, API key,
   * passkey and linked identity ends: whoever moved the email may have added them), and every
   * reset or verification link mailed meanwhile stops working: whoever moved the email is out.
   */
  async undoEmailChange(token: string, client: ClientInfo): Promise<void> {
    const used = await this.links.undo_email_change.spend(token)
    const user = used?.userId && (await this.users.find(used.userId))
    if (!used || !user) throw invalidToken()
    const reverted = await this.users.revertEmail(user.id, used.data.email)
    await this.recovery.recover(reverted, client, 'email_change_undone')
    await this.retireMailedLinks(user.id)
    await this.events.record('email_change_undone', user.id, client)
  }

  /** Reset and verification links mailed earlier stop working. */
  private async retireMailedLinks(userId: number): Promise<void> {
    await this.links.reset_password.retire(userId)
    await this.links.verify_email.retire(userId)
  }

  /**
   * Superusers only: undoes a soft delete (UserService.restore). Tokens issued before the deletion
   * must not come back to life with the account: its sessions end first, while it is still
   * deleted, so nothing can use them meanwhile.
   */
  async restoreUser(actor: Actor, userId: number, client: ClientInfo): Promise<User> {
    await this.users.assertRestorable(actor, userId)
    await this.auth.revokeSessionsOf(userId, client)
    return this.users.restore(actor, userId)
  }

  /** After an email change committed ('user.email_changed'): a verification link to the new address, a notice to the old one. */
  async emailChanged(user: User, previousEmail: string): Promise<void> {
    const noticeToPreviousAddress = async (unit: Unit) => {
      // A reset link mailed to the old address must not outlive the change.
      await this.links.reset_password.retire(user.id, { unit })
      // The previous address can undo the change for a week. Earlier undo links stay valid: a
      // second change by an intruder must not take the owner's link away.
      const undo = await this.issueLink(unit, user, 'undo_email_change', previousEmail)
      const undoLink = this.link(undefined, '/account/undo-email-change', undo)
      const values = { name: user.name, email: previousEmail, new_email: user.email, undo_link: undoLink, undo_valid_for: duration(UNDO_EMAIL_CHANGE_MINUTES) }
      await this.mail.queue(unit, { template: 'email-changed', to: previousEmail, locale: user.locale, values })
      await this.events.record('email_changed', user.id, null, { unit })
    }
    try {
      await this.sendVerification(user, user.email, noticeToPreviousAddress)
    } catch (error) {
      // Past the verification-mail limits the new address gets no link (the user can ask later);
      // the owner of the previous address is told all the same.
      if (!(error instanceof DomainError && error.kind === 'rate_limited')) throw error
      await this.unitOfWork.run(noticeToPreviousAddress)
    }
  }

  /**
   * Mails a verification link, within the verification-mail limits per user and per recipient:
   * neither asking again nor moving the email to someone else's address floods a mailbox (429).
   */
  private async sendVerification(user: User, email: string, alsoInUnit?: (unit: Unit) => Promise<void>): Promise<void> {
    await this.limits.consumeBuckets([
      ['verification-mail-user', String(user.id)],
      ['verification-mail-recipient', hashedKey(email.trim().toLowerCase())],
    ])
    await this.unitOfWork.run(async (unit) => {
      await this.queueVerification(unit, user, email)
      await alsoInUnit?.(unit)
    })
  }

  private async queueVerification(unit: Unit, user: User, email: string): Promise<void> {
    const minutes = this.config.verificationHours * 60
    const token = await this.issueLink(unit, user, 'verify_email', email)
    const link = this.link(this.config.verifyEmailUrl, '/account/verify-email', token)
    await this.mail.queue(unit, { template: 'verify-email', to: email, locale: user.locale, values: { name: user.name, email, link, valid_for: duration(minutes) } })
  }

  private async issueLink(unit: Unit, user: User, purpose: LinkPurpose, email: string): Promise<string> {
    return (await this.links[purpose].issue({ userId: user.id, data: { email }, unit })).token
  }

  /** The frontend's link template ({token}) when configured, else the service's own page. */
  private link(template: string | undefined, page: string, token: string): string {
    return mailedLink(template, `${this.config.publicUrl}${page}`, token)
  }
}
