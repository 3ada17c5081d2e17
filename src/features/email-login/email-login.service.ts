// Sign-in by email: a live account asks, and gets a mail holding a link and a 6-digit code, both
// single use, valid 15 minutes, kept hashed in the one-time secret store and queued through the
// outbox with it. Either signs in and counts the address as verified. It never creates an account. The
// first proof of the mailbox on an account that never gave one adopts it: whatever ways in the
// account had (a password someone else chose when signing up with this address, an identity a
// provider linked without vouching for the address) end first (AccountRecovery).
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { BackgroundWork } from '../../shared/background-work.js'
import { invalidCode, invalidToken } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { RedirectAllowList } from '../../shared/redirect-allow-list.js'
import type { AuthService, BrowserSession, SignInMethod } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration } from '../mail/index.js'
import type { OneTimeSecrets, SecretKind, SpentSecret } from '../one-time-secrets/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { AccountRecovery } from '../recovery/index.js'
import type { ClientInfo, LoginMethod, SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'

export const EMAIL_LOGIN_MINUTES = 15
/** Codes tried against one request, right or wrong, before it is spent. */
export const EMAIL_LOGIN_MAX_ATTEMPTS = 5
/** No account has id 0: an unknown address takes an attempt from nobody's requests. */
const NO_USER = 0

export interface EmailLoginSettings {
  /** Base of the service's own pages, without a trailing slash. */
  publicUrl: string
  /** A frontend's page for the link ({token}, and optionally {redirect_to}); undefined: the service's own page. */
  linkTemplate: string | undefined
}

/** The address the mail went to: signing in with it verifies that address only. */
interface SignInMail {
  email: string
}

/** What EmailLoginService is built from. */
export interface EmailLoginServiceDependencies {
  secrets: OneTimeSecrets
  unitOfWork: UnitOfWork
  users: UserService
  auth: AuthService
  mail: MailService
  events: SecurityEventService
  limits: RateLimitService
  redirects: RedirectAllowList
  recovery: AccountRecovery
  afterAnswer: BackgroundWork
  settings: EmailLoginSettings
}

export class EmailLoginService {
  /** A newer request retires the user's older ones; a code gets EMAIL_LOGIN_MAX_ATTEMPTS tries, after which the link dies too. */
  private readonly mails: SecretKind<SignInMail>

  private readonly unitOfWork: UnitOfWork
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly mail: MailService
  private readonly events: SecurityEventService
  private readonly limits: RateLimitService
  private readonly redirects: RedirectAllowList
  private readonly recovery: AccountRecovery
  private readonly afterAnswer: BackgroundWork
  private readonly settings: EmailLoginSettings

  constructor(dependencies: EmailLoginServiceDependencies) {
    this.unitOfWork = dependencies.unitOfWork
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.mail = dependencies.mail
    this.events = dependencies.events
    this.limits = dependencies.limits
    this.redirects = dependencies.redirects
    this.recovery = dependencies.recovery
    this.afterAnswer = dependencies.afterAnswer
    this.settings = dependencies.settings
    const secrets = dependencies.secrets
    this.mails = secrets.kind<SignInMail>('email_login', { seconds: EMAIL_LOGIN_MINUTES * 60, maxAttempts: EMAIL_LOGIN_MAX_ATTEMPTS, replacesEarlier: true })
  }

  /**
   * Counts the request against its limits (per client address and per email, 429), then
   * answers; the account is looked up after the answer, so a registered and an unknown address
   * answer alike, in the same time. A `redirectTo` off AUTH_REDIRECT_ORIGINS is refused first.
   */
  async request(email: string, redirectTo: string | undefined, client: ClientInfo): Promise<void> {
    const redirect = redirectTo === undefined ? undefined : this.redirects.check(redirectTo)
    await this.limits.consumeBuckets([
      ['email-login-address', client.ip ?? ''],
      ['email-login-email', hashedKey(email.trim().toLowerCase())],
    ])
    this.afterAnswer.start(() => this.mailSignIn(email, redirect, client))
  }

  private async mailSignIn(email: string, redirect: string | undefined, client: ClientInfo): Promise<void> {
    const user = await this.users.findActiveByEmail(email)
    if (!user) return
    await this.unitOfWork.run(async (unit) => {
      const { token, code = '' } = await this.mails.issue({ userId: user.id, data: { email: user.email }, code: true, unit })
      const values = { name: user.name, link: this.link(token, redirect), code, valid_for: duration(EMAIL_LOGIN_MINUTES) }
      await this.mail.queue(unit, { template: 'email-login', to: user.email, locale: user.locale, values })
      await this.events.record('email_login_requested', user.id, client, { unit })
    })
  }

  /** Signs in with the link's token (the client's device cookie, if it has one, says whether this browser was here before). */
  confirmToken(token: string, client: ClientInfo): Promise<BrowserSession> {
    return this.auth.signIn('email_link', token, client)
  }

  /** Signs in with the mailed code (EMAIL_LOGIN_MAX_ATTEMPTS tries against one request). */
  confirmCode(email: string, code: string, client: ClientInfo): Promise<BrowserSession> {
    return this.auth.signIn('email_code', { email, code }, client)
  }

  /** The two ways in this slice offers (its manifest's `signInMethods`): a mailbox proven, not a person, so they prove no fresh session. */
  readonly signInMethods: readonly [SignInMethod<string>, SignInMethod<{ email: string; code: string }>] = [
    { name: 'email_link', proves: null, complete: false, verify: (token, client) => this.verifyToken(token, client) },
    { name: 'email_code', proves: null, complete: false, verify: ({ email, code }, client) => this.verifyCode(email, code, client) },
  ]

  private async verifyToken(token: string, client: ClientInfo): Promise<number> {
    const spent = await this.mails.spend(token)
    if (!spent) throw invalidToken()
    return this.proven(spent, client, 'email_link')
  }

  /**
   * Signs in with the mailed code. Each try takes one of the request's attempts before the code
   * is compared, so even concurrent guesses try at most EMAIL_LOGIN_MAX_ATTEMPTS codes; then the
   * request is spent, link included. A wrong code costs the same work whether the address is
   * registered, has a mail pending, or is unknown: the same lookup, the same UPDATE (for no user
   * when there is none) and the same failure logged (with no user, as a password login logs one).
   */
  private async verifyCode(email: string, code: string, client: ClientInfo): Promise<number> {
    const user = await this.users.findActiveByEmail(email)
    const spent = await this.mails.spendCode(user?.id ?? NO_USER, code)
    if (!user || !spent) {
      await this.events.record('login_failed', user?.id ?? null, client, { method: 'email_code' })
      throw invalidCode()
    }
    return this.proven(spent, client, 'email_code')
  }

  /** The account a spent mail proves, once its mailbox is the account's: the user to sign in. */
  private async proven(spent: SpentSecret<SignInMail>, client: ClientInfo, method: LoginMethod): Promise<number> {
    const user = spent.userId === null ? undefined : await this.users.find(spent.userId)
    // Deactivated, deleted or moved to another address since the mail went out.
    const current = user?.isActive === true && user.email.toLowerCase() === spent.data.email.toLowerCase()
    if (!user || !current) throw method === 'email_link' ? invalidToken() : invalidCode()
    // A banned account is refused before its mailbox proof changes anything.
    await this.users.assertNotBanned(user)
    // The first proof of this mailbox: the account is the mailbox owner's from now on, and
    // nothing someone else added to it before survives (account pre-hijacking). Unless this very
    // browser signed in to the account before (its device cookie): then whoever holds the
    // mailbox also holds what the account had, as when a person signs up and then signs in by mail.
    if (!(await this.users.hasProvedMailbox(user.id)) && !(await this.auth.isKnownDevice(user.id, client.deviceToken))) {
      await this.recovery.recover(user, client, 'email_sign_in', { adopting: true })
    }
    await this.users.markEmailVerified(user.id, spent.data.email)
    await this.mails.retire(user.id)
    return user.id
  }

  /** A redirect_to the service's sign-in page may send the browser on to, or undefined. */
  allowedRedirect(url: string): string | undefined {
    return this.redirects.allowed(url)
  }

  settle(): Promise<void> {
    return this.afterAnswer.settle()
  }

  /** The frontend's page (EMAIL_LOGIN_URL) when configured, else the service's own. */
  private link(token: string, redirect: string | undefined): string {
    const encoded = encodeURIComponent(token)
    const redirectParam = redirect === undefined ? '' : encodeURIComponent(redirect)
    const template = this.settings.linkTemplate
    if (template) return template.replaceAll('{token}', encoded).replaceAll('{redirect_to}', redirectParam)
    return `${this.settings.publicUrl}/account/email-login?token=${encoded}${redirect === undefined ? '' : `&redirect_to=${redirectParam}`}`
  }
}
