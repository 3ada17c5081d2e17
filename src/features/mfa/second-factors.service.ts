// Second factors: a TOTP authenticator with ten single-use recovery codes, set up and removed by
// the user, removed by a superuser, and the challenges that sign-in hands out between the first
// factor and the second (SecondFactorGate, which AuthService asks). Every code is spent by a
// conditional UPDATE, so across requests and processes a code works once.
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError } from '../../shared/errors.js'
import type { SecretBox } from '../../shared/secret-box.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { EnrolmentSessions, SecondFactorChallenge, SecondFactorGate, SecondFactorProof, TakenChallenge } from '../auth/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { PasskeyService, PublicKeyCredentialRequestOptionsJSON } from '../passkeys/index.js'
import type { ClientInfo, LoginMethod, SecondFactorMethod, SecurityEventService } from '../security-events/index.js'
import type { User, UserService } from '../users/index.js'
import type { MfaRepository } from './mfa.repository.js'
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js'
import { matchingStep, newTotpSecret, otpauthUrl, qrCodeOf } from './totp.js'

/** How long a client has, after its first factor, to present the second. */
export const MFA_TOKEN_SECONDS = 5 * 60
/** Wrong codes against one mfa_token before it dies. */
export const MFA_TOKEN_ATTEMPTS = 5
export const INVALID_CODE = 'Invalid code'
export const INVALID_MFA_TOKEN = 'Invalid or expired MFA token'

export interface TotpSetup {
  /** Base32, for typing into an app by hand. */
  secret: string
  otpauthUrl: string
  /** The otpauth URL as a QR code (an SVG data URL). */
  qrCode: string
}

export interface SecondFactorStatus {
  /** When the authenticator was confirmed; null when there is none (or only a pending one). */
  totpConfirmedAt: string | null
  recoveryCodesLeft: number
  passkeys: number
  /** What a sign-in would ask for; empty when there is no second factor. */
  methods: SecondFactorMethod[]
}

const invalidMfaToken = () => new DomainError('unauthenticated', INVALID_MFA_TOKEN, { code: 'invalid_mfa_token' })
/** A wrong code at sign-in: 401, as a wrong password is. */
const wrongSignInCode = () => new DomainError('unauthenticated', INVALID_CODE, { code: 'invalid_mfa_code' })
/** A wrong code from a signed-in user: 400, so that a client does not take it for an ended session. */
const wrongCode = () => new DomainError('invalid', INVALID_CODE, { code: 'invalid_mfa_code' })
const wrongSignInPasskey = () => new DomainError('unauthenticated', 'Invalid passkey', { code: 'invalid_passkey' })
const notEnabled = () => new DomainError('conflict', 'No authenticator is set up', { code: 'mfa_not_enabled' })
const alreadyEnabled = () => new DomainError('conflict', 'An authenticator is already set up', { code: 'mfa_already_enabled' })

/** Thrown inside a unit of work to roll it back when a code is wrong. */
class WrongCode extends Error {}


/** What an mfa_token carries: the first factor that was proven. */
interface MfaTokenData {
  method: LoginMethod
}

/** What SecondFactorService is built from. */
export interface SecondFactorServiceDependencies {
  repository: MfaRepository
  secrets: OneTimeSecrets
  unitOfWork: UnitOfWork
  box: SecretBox
  users: UserService
  passkeys: PasskeyService
  events: SecurityEventService
  options: { issuer: string }
  sessions: EnrolmentSessions
  now?: () => number
}

export class SecondFactorService implements SecondFactorGate {
  private readonly mfaTokens: SecretKind<MfaTokenData>

  private readonly repository: MfaRepository
  private readonly unitOfWork: UnitOfWork
  private readonly box: SecretBox
  private readonly users: UserService
  private readonly passkeys: PasskeyService
  private readonly events: SecurityEventService
  private readonly options: { issuer: string }
  private readonly sessions: EnrolmentSessions
  private readonly now: () => number

  constructor(dependencies: SecondFactorServiceDependencies) {
    this.repository = dependencies.repository
    this.unitOfWork = dependencies.unitOfWork
    this.box = dependencies.box
    this.users = dependencies.users
    this.passkeys = dependencies.passkeys
    this.events = dependencies.events
    this.options = dependencies.options
    this.sessions = dependencies.sessions
    this.now = dependencies.now ?? Date.now
    const secrets = dependencies.secrets
    this.mfaTokens = secrets.kind('mfa', { seconds: MFA_TOKEN_SECONDS, maxAttempts: MFA_TOKEN_ATTEMPTS })
  }

  /** The user's second factors; read inside `unit` when a change decides on them. */
  async status(userId: number, unit?: Unit): Promise<SecondFactorStatus> {
    const repository = unit ? this.repository.in(unit) : this.repository
    const [factor, recoveryCodesLeft, passkeys] = await Promise.all([
      repository.findTotpFactor(userId),
      repository.countUnusedRecoveryCodes(userId),
      this.passkeys.count(userId, unit),
    ])
    const confirmedAt = factor?.confirmed_at ? toIsoString(factor.confirmed_at) : null
    const methods: SecondFactorMethod[] = [...(confirmedAt ? (['totp', 'recovery_code'] as const) : []), ...(passkeys > 0 ? (['passkey'] as const) : [])]
    return { totpConfirmedAt: confirmedAt, recoveryCodesLeft, passkeys, methods }
  }

  /** Any user's second factors (superusers; 404 when there is no such user). */
  async statusOf(actor: Actor, userId: number): Promise<SecondFactorStatus> {
    await this.users.getManaged(actor, userId)
    return this.status(userId)
  }

  /** A confirmed authenticator or a passkey; read inside `unit` when a change decides on it. */
  async isEnrolled(userId: number, unit?: Unit): Promise<boolean> {
    return (await this.status(userId, unit)).methods.length > 0
  }

  /** Request options for proving the second factor of the sign-in an mfa_token names with a passkey. */
  async passkeyOptions(mfaToken: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const challenge = await this.mfaTokens.peek(mfaToken)
    if (challenge?.userId == null) throw invalidMfaToken()
    if ((await this.passkeys.count(challenge.userId)) === 0) throw new DomainError('conflict', 'The account has no passkey', { code: 'mfa_not_enabled' })
    return this.passkeys.secondFactorOptions(challenge.userId, challenge.handle)
  }

  /** A new pending secret (replacing a pending one); 409 when one is confirmed. */
  async startTotp(user: User): Promise<TotpSetup> {
    const secret = newTotpSecret()
    if (!(await this.repository.setPendingTotpFactor(user.id, this.box.seal(secret)))) throw alreadyEnabled()
    const url = otpauthUrl(secret, this.options.issuer, user.email)
    return { secret, otpauthUrl: url, qrCode: await qrCodeOf(url) }
  }

  /**
   * Confirms the pending secret with a code from it; answers the recovery codes, shown this once.
   * Every other session ends, as after a password change: one opened with the first factor alone
   * must not keep refreshing past the new factor. This one has just proved the factor.
   */
  async confirmTotp(user: User, code: string, client: ClientInfo, sessionId: string): Promise<string[]> {
    const factor = await this.repository.findTotpFactor(user.id)
    if (!factor || factor.confirmed_at) throw notEnabled()
    const step = matchingStep(this.box.open(factor.secret), code, this.now())
    if (step === undefined) throw wrongCode()
    const codes = newRecoveryCodes()
    await this.inUnit(async (repository, unit) => {
      if (!(await repository.spendTotpStep(user.id, step, true))) throw new WrongCode()
      await repository.replaceRecoveryCodes(user.id, codes.map(recoveryCodeHash))
      await this.events.record('mfa_enabled', user.id, client, { unit, method: 'totp' })
    }, wrongCode)
    await this.sessions.endOthers(user.id, client, sessionId)
    await this.sessions.markProven(sessionId, 'second_factor')
    return codes
  }

  /** A new set of recovery codes, for a current TOTP code; the old set dies. */
  async regenerateRecoveryCodes(user: User, code: string, client: ClientInfo): Promise<string[]> {
    const codes = newRecoveryCodes()
    await this.inUnit(async (repository, unit) => {
      if (!(await this.spendTotpCode(repository, user.id, code))) throw new WrongCode()
      await repository.replaceRecoveryCodes(user.id, codes.map(recoveryCodeHash))
      await this.events.record('recovery_codes_regenerated', user.id, client, { unit, method: 'totp' })
    }, wrongCode)
    return codes
  }

  /** Turns TOTP off (and its recovery codes), for a current TOTP code or a recovery code. */
  async disableTotp(user: User, code: string, client: ClientInfo): Promise<void> {
    if (!(await this.repository.findTotpFactor(user.id))?.confirmed_at) throw notEnabled()
    await this.inUnit(async (repository, unit) => {
      const method = await this.spendEither(repository, user.id, code)
      if (!method) throw new WrongCode()
      await repository.deleteSecondFactors(user.id)
      await this.mfaTokens.retire(user.id, { unit })
      await this.events.record('mfa_disabled', user.id, client, { unit, method })
    }, wrongCode)
  }

  /** Removes every second factor of a user (a superuser's reset); false when there was none. */
  async removeAllOf(userId: number, client: ClientInfo): Promise<boolean> {
    const passkeys = await this.passkeys.removeAllOf(userId)
    return this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      const removed = (await repository.deleteSecondFactors(userId)) || passkeys > 0
      await this.mfaTokens.retire(userId, { unit })
      if (removed) await this.events.record('mfa_reset_by_admin', userId, client, { unit })
      return removed
    })
  }

  /** Removes the user's authenticator app and recovery codes (account recovery adopting it); false when there was none. */
  async removeTotpOf(userId: number, client: ClientInfo | null): Promise<boolean> {
    return this.unitOfWork.run(async (unit) => {
      const repository = this.repository.in(unit)
      const removed = await repository.deleteSecondFactors(userId)
      await this.mfaTokens.retire(userId, { unit })
      if (removed) await this.events.record('mfa_disabled', userId, client, { unit, method: 'totp' })
      return removed
    })
  }

  async challengeFor(userId: number, method: LoginMethod): Promise<SecondFactorChallenge | undefined> {
    const { methods } = await this.status(userId)
    if (methods.length === 0) return undefined
    const { token: mfaToken } = await this.mfaTokens.issue({ userId, data: { method } })
    return { mfaToken, methods }
  }

  async takeAttempt(mfaToken: string): Promise<TakenChallenge> {
    const taken = await this.mfaTokens.attempt(mfaToken)
    if (taken?.userId == null) throw invalidMfaToken()
    return { tokenHash: taken.handle, userId: taken.userId, method: taken.data.method }
  }

  async prove(challenge: TakenChallenge, proof: SecondFactorProof, client: ClientInfo): Promise<void> {
    const { userId } = challenge
    if ('passkeyResponse' in proof) return this.provePasskey(challenge, proof.passkeyResponse, client)
    const method: SecondFactorMethod = 'code' in proof ? 'totp' : 'recovery_code'
    try {
      await this.inUnit(async (repository, unit) => {
        // Spent with the code, in one transaction: a wrong code rolls the challenge back for another try.
        if (!(await this.mfaTokens.spendAttempted(challenge.tokenHash, { unit }))) throw invalidMfaToken()
        const right = 'code' in proof ? await this.spendTotpCode(repository, userId, proof.code) : await repository.spendRecoveryCode(userId, recoveryCodeHash(proof.recoveryCode))
        if (!right) throw new WrongCode()
        await this.events.record(method === 'totp' ? 'mfa_verified' : 'recovery_code_used', userId, client, { unit, method })
      }, wrongSignInCode)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_mfa_code') await this.events.record('mfa_failed', userId, client, { method })
      throw error
    }
  }

  /**
   * A signed-in user proves their second factor again (reauthentication): a TOTP code or a
   * recovery code, spent as at sign-in. 400 `invalid_mfa_code` when wrong; which method it was.
   */
  async proveSignedIn(user: User, proof: { code: string } | { recoveryCode: string }, client: ClientInfo): Promise<SecondFactorMethod> {
    const method: SecondFactorMethod = 'code' in proof ? 'totp' : 'recovery_code'
    try {
      await this.inUnit(async (repository, unit) => {
        const right = 'code' in proof ? await this.spendTotpCode(repository, user.id, proof.code) : await repository.spendRecoveryCode(user.id, recoveryCodeHash(proof.recoveryCode))
        if (!right) throw new WrongCode()
        await this.events.record(method === 'totp' ? 'mfa_verified' : 'recovery_code_used', user.id, client, { unit, method })
      }, wrongCode)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_mfa_code') await this.events.record('mfa_failed', user.id, client, { method })
      throw error
    }
    return method
  }

  /** A passkey as the second factor: its own challenge, made for this mfa_token, spent first; then the mfa_token. */
  private async provePasskey(challenge: TakenChallenge, response: Parameters<PasskeyService['proveSecondFactor']>[2], client: ClientInfo): Promise<void> {
    if (!(await this.passkeys.proveSecondFactor(challenge.userId, challenge.tokenHash, response, client))) {
      await this.events.record('mfa_failed', challenge.userId, client, { method: 'passkey' })
      throw wrongSignInPasskey()
    }
    if (!(await this.mfaTokens.spendAttempted(challenge.tokenHash))) throw invalidMfaToken()
    await this.events.record('mfa_verified', challenge.userId, client, { method: 'passkey' })
  }

  /** Runs `work` in a unit of work; a WrongCode thrown in it rolls back and becomes `wrong()`. */
  private async inUnit(work: (repository: MfaRepository, unit: Unit) => Promise<void>, wrong: () => DomainError): Promise<void> {
    try {
      await this.unitOfWork.run((unit) => work(this.repository.in(unit), unit))
    } catch (error) {
      if (error instanceof WrongCode) throw wrong()
      throw error
    }
  }

  /** Spends the step of a code from the user's confirmed secret; false when the code is wrong or its step was used. */
  private async spendTotpCode(repository: MfaRepository, userId: number, code: string): Promise<boolean> {
    const factor = await repository.findTotpFactor(userId)
    if (!factor?.confirmed_at) return false
    const step = matchingStep(this.box.open(factor.secret), code, this.now())
    if (step === undefined || !(await repository.spendTotpStep(userId, step, false))) return false
    if (this.box.isStale(factor.secret)) await repository.resealTotpFactor(userId, this.box.seal(this.box.open(factor.secret)))
    return true
  }

  /** A TOTP code (six digits) or a recovery code, spent; which it was, or undefined when neither. */
  private async spendEither(repository: MfaRepository, userId: number, code: string): Promise<SecondFactorMethod | undefined> {
    if (/^\d{6}$/.test(code)) return (await this.spendTotpCode(repository, userId, code)) ? 'totp' : undefined
    return (await repository.spendRecoveryCode(userId, recoveryCodeHash(code))) ? 'recovery_code' : undefined
  }
}
