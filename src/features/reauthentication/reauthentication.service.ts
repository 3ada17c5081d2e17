// Recent proof of identity, the one rule for every sensitive action: adding a way in (a passkey,
// a linked identity, an API key, an authenticator app), removing a second factor, and what later
// features mark the same (exports, deletion, impersonation). A session is fresh for ten minutes
// after it proved who holds it: a sign-in by password, second factor or passkey, or POST
// /reauthenticate with a password, a TOTP or recovery code, a passkey, or (for an account with
// none of these) a code mailed to it. On an account with a second factor the proof must be that
// factor or a passkey: a stolen password alone never makes a session fresh.
import type { UnitOfWork } from '../../db/unit-of-work.js'
import { DomainError } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { AuthService, LoginThrottle, PasskeyResponse, SessionProof, TokenCaller } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration } from '../mail/index.js'
import type { SecondFactorService } from '../mfa/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { PasskeyService, PublicKeyCredentialRequestOptionsJSON } from '../passkeys/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'
import { incorrectPassword, limitIdentity } from '../users/index.js'

/** How long a proof keeps a session fresh. */
export const REAUTHENTICATION_MINUTES = 10

/** A proof an account can give: what a 403 `reauthentication_required` lists. */
export type ReauthenticationMethod = 'password' | 'totp' | 'recovery_code' | 'passkey' | 'email_code'

export type ReauthenticationProof =
  | { password: string }
  | { code: string }
  | { recoveryCode: string }
  | { passkeyResponse: PasskeyResponse }
  | { emailCode: string }

export interface Freshness {
  /** Until when the session counts as fresh; null when it is not. */
  freshUntil: Date | null
  /** The proofs the account can give now. */
  methods: ReauthenticationMethod[]
}

const REAUTHENTICATION_REQUIRED = 'This needs a recent proof that it is you: POST /api/v2/reauthenticate with one of `methods` (valid 10 minutes)'
const METHOD_UNAVAILABLE = 'This account cannot prove itself that way: use one of `methods`'
const INVALID_EMAIL_CODE = 'Invalid or expired code'

export const reauthenticationRequired = (methods: ReauthenticationMethod[]) =>
  new DomainError('forbidden', REAUTHENTICATION_REQUIRED, { code: 'reauthentication_required', fields: { methods } })
const methodUnavailable = (methods: ReauthenticationMethod[]) => new DomainError('conflict', METHOD_UNAVAILABLE, { code: 'reauthentication_method_unavailable', fields: { methods } })

const methodOf = (proof: ReauthenticationProof): ReauthenticationMethod =>
  'password' in proof ? 'password' : 'code' in proof ? 'totp' : 'recoveryCode' in proof ? 'recovery_code' : 'passkeyResponse' in proof ? 'passkey' : 'email_code'

/** What ReauthenticationService is built from. */
export interface ReauthenticationServiceDependencies {
  auth: AuthService
  users: UserService
  secondFactors: SecondFactorService
  passkeys: PasskeyService
  secrets: OneTimeSecrets
  throttle: LoginThrottle
  limits: RateLimitService
  mail: MailService
  unitOfWork: UnitOfWork
  events: SecurityEventService
  now?: () => number
}

export class ReauthenticationService {
  /** A six-digit code mailed to prove the mailbox again, for an account with no other proof. */
  private readonly mailedCodes: SecretKind<undefined>

  private readonly auth: AuthService
  private readonly users: UserService
  private readonly secondFactors: SecondFactorService
  private readonly passkeys: PasskeyService
  private readonly throttle: LoginThrottle
  private readonly limits: RateLimitService
  private readonly mail: MailService
  private readonly unitOfWork: UnitOfWork
  private readonly events: SecurityEventService
  private readonly now: () => number

  constructor(dependencies: ReauthenticationServiceDependencies) {
    this.auth = dependencies.auth
    this.users = dependencies.users
    this.secondFactors = dependencies.secondFactors
    this.passkeys = dependencies.passkeys
    this.throttle = dependencies.throttle
    this.limits = dependencies.limits
    this.mail = dependencies.mail
    this.unitOfWork = dependencies.unitOfWork
    this.events = dependencies.events
    this.now = dependencies.now ?? Date.now
    const secrets = dependencies.secrets
    this.mailedCodes = secrets.kind('reauthentication_code', { seconds: 10 * 60, maxAttempts: 5, replacesEarlier: true })
  }

  /** The proofs the account can give: its second factors when it has any; else its password; else a mailed code. */
  async methodsOf(userId: number): Promise<ReauthenticationMethod[]> {
    const { methods } = await this.secondFactors.status(userId)
    if (methods.length > 0) return methods
    return (await this.users.hasPassword(userId)) ? ['password'] : ['email_code']
  }

  async freshness(caller: TokenCaller): Promise<Freshness> {
    const [{ provenAt, proof }, methods] = await Promise.all([this.auth.proofOf(caller), this.methodsOf(caller.user.id)])
    const freshUntil = provenAt && proof && counts(proof, methods) ? new Date(provenAt.getTime() + REAUTHENTICATION_MINUTES * 60_000) : null
    return { freshUntil: freshUntil && freshUntil.getTime() > this.now() ? freshUntil : null, methods }
  }

  /** 403 `reauthentication_required` (listing the account's proofs) unless the caller's session is fresh. */
  async assertFresh(caller: TokenCaller): Promise<void> {
    const { freshUntil, methods } = await this.freshness(caller)
    if (freshUntil === null) throw reauthenticationRequired(methods)
  }

  /**
   * Checks a proof and marks the caller's session fresh. A proof the account cannot give (a
   * password when it has a second factor) is 409 `reauthentication_method_unavailable`; a wrong
   * one is the usual 400 (`incorrect_password`, `invalid_mfa_code`, `invalid_passkey`,
   * `invalid_code`), counted as guesses of that kind are at sign-in.
   */
  async prove(caller: TokenCaller, proof: ReauthenticationProof, client: ClientInfo): Promise<Freshness> {
    const { user } = caller
    const methods = await this.methodsOf(user.id)
    const method = methodOf(proof)
    if (!methods.includes(method)) throw methodUnavailable(methods)
    const sessionProof = await this.check(caller, proof, client).catch(async (error: unknown) => {
      await this.events.record('reauthentication_failed', user.id, client, { method })
      throw error
    })
    await this.auth.markProven(caller, sessionProof)
    await this.events.record('reauthenticated', user.id, client, { method })
    return this.freshness(caller)
  }

  /** Request options for proving it with one of the caller's passkeys (a challenge for this, single use, 5 minutes). */
  async passkeyOptions(caller: TokenCaller): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const methods = await this.methodsOf(caller.user.id)
    if (!methods.includes('passkey')) throw methodUnavailable(methods)
    return this.passkeys.reauthenticationOptions(caller.user.id)
  }

  /**
   * Mails the caller a six-digit code (10 minutes, five tries), for an account with no password,
   * second factor or passkey; limited as sign-in mails are, per address and per email.
   */
  async mailCode(caller: TokenCaller, client: ClientInfo): Promise<void> {
    const { user } = caller
    const methods = await this.methodsOf(user.id)
    if (!methods.includes('email_code')) throw methodUnavailable(methods)
    await this.limits.consumeBuckets([
      ['email-login-address', client.ip ?? ''],
      ['email-login-email', hashedKey(user.email.trim().toLowerCase())],
    ])
    await this.unitOfWork.run(async (unit) => {
      const { code = '' } = await this.mailedCodes.issue({ userId: user.id, data: undefined, code: true, unit })
      const values = { name: user.name, code, valid_for: duration(this.mailedCodes.lifetimeSeconds / 60) }
      await this.mail.queue(unit, { template: 'reauthentication-code', to: user.email, locale: user.locale, values })
    })
  }

  /** The session proof a right answer gives; throws the refusal of a wrong one. */
  private async check(caller: TokenCaller, proof: ReauthenticationProof, client: ClientInfo): Promise<SessionProof> {
    const { user } = caller
    if ('password' in proof) {
      if (!(await this.users.checkPassword(user, proof.password, client))) throw incorrectPassword()
      return 'password'
    }
    if ('code' in proof || 'recoveryCode' in proof) {
      await this.throttle.countSecondFactor(limitIdentity(user), user.id, undefined, client.ip ?? '')
      await this.secondFactors.proveSignedIn(user, proof, client)
      return 'second_factor'
    }
    if ('passkeyResponse' in proof) {
      await this.throttle.countPasskey(client.ip ?? '')
      if (!(await this.passkeys.proveReauthentication(user.id, proof.passkeyResponse, client))) throw new DomainError('invalid', 'Invalid passkey', { code: 'invalid_passkey' })
      return 'passkey'
    }
    if (!(await this.mailedCodes.spendCode(user.id, proof.emailCode))) throw new DomainError('invalid', INVALID_EMAIL_CODE, { code: 'invalid_code' })
    return 'email_code'
  }
}

/** Whether a session's proof counts for an account whose proofs are `methods`: with a second factor, only that factor or a passkey does. */
function counts(proof: SessionProof, methods: ReauthenticationMethod[]): boolean {
  const hasSecondFactor = methods.some((method) => method === 'totp' || method === 'passkey')
  return hasSecondFactor ? proof === 'second_factor' || proof === 'passkey' : true
}
