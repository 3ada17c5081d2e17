// Account recovery, in one routine: what the ways into an account are, and ending those someone
// else may have added. A password reset, an undone email change, and the first proof of a
// mailbox on an account that never gave one (account pre-hijacking: someone signed up with the
// owner's address, or a provider vouched for nothing) all end through here, so each lists the
// same things: every session and API key, every passkey and linked identity the owner did not
// choose to keep, and, when the mailbox adopts the account, its password and second factors
// too. The owner gets a security event and a mail saying what ended and what still works.
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { ApiKeyService } from '../api-keys/index.js'
import type { AuthService } from '../auth/index.js'
import type { IdentityService } from '../identities/index.js'
import type { MailPhrase, MailService } from '../mail/index.js'
import { phrase } from '../mail/index.js'
import type { SecondFactorService } from '../mfa/index.js'
import type { PasskeyService } from '../passkeys/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { User, UserService } from '../users/index.js'

/** Every way into an account, as its owner sees it when recovering it. */
export interface WaysIn {
  password: boolean
  passkeys: { id: string; name: string; createdAt: string; lastUsedAt: string | null }[]
  identities: { id: string; provider: string; email: string | null; createdAt: string }[]
  authenticatorApp: boolean
  apiKeys: number
  sessions: number
}

/** The passkeys and identities (by id) the owner recognises and keeps. */
export interface KeptWaysIn {
  passkeys: string[]
  identities: string[]
}

/** What a recovery ended. */
export interface EndedWaysIn {
  sessions: number
  apiKeys: number
  /** Names of the passkeys removed. */
  passkeys: string[]
  /** Providers of the identities unlinked. */
  identities: string[]
  password: boolean
  secondFactors: boolean
}

/** What recovered the account: what the mail says happened. */
export type RecoveryReason = 'password_reset' | 'email_change_undone' | 'email_sign_in'

const NOTHING_KEPT: KeptWaysIn = { passkeys: [], identities: [] }

/** What AccountRecovery is built from. */
export interface AccountRecoveryDependencies {
  users: UserService
  auth: AuthService
  apiKeys: ApiKeyService
  passkeys: PasskeyService
  identities: IdentityService
  secondFactors: SecondFactorService
  mail: MailService
  unitOfWork: UnitOfWork
  events: SecurityEventService
}

export class AccountRecovery {
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly apiKeys: ApiKeyService
  private readonly passkeys: PasskeyService
  private readonly identities: IdentityService
  private readonly secondFactors: SecondFactorService
  private readonly mail: MailService
  private readonly unitOfWork: UnitOfWork
  private readonly events: SecurityEventService

  constructor(dependencies: AccountRecoveryDependencies) {
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.apiKeys = dependencies.apiKeys
    this.passkeys = dependencies.passkeys
    this.identities = dependencies.identities
    this.secondFactors = dependencies.secondFactors
    this.mail = dependencies.mail
    this.unitOfWork = dependencies.unitOfWork
    this.events = dependencies.events
  }

  async waysIn(userId: number): Promise<WaysIn> {
    const [password, passkeys, identities, factors, apiKeys, sessions] = await Promise.all([
      this.users.hasPassword(userId),
      this.passkeys.list(userId),
      this.identities.identitiesOf(userId),
      this.secondFactors.status(userId),
      this.apiKeys.countLiveOf(userId),
      this.auth.countLiveSessions(userId),
    ])
    return {
      password,
      passkeys: passkeys.map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt })),
      identities: identities.map(({ id, provider, email, createdAt }) => ({ id, provider, email, createdAt })),
      authenticatorApp: factors.totpConfirmedAt !== null,
      apiKeys,
      sessions,
    }
  }

  /**
   * Ends every way in that whoever held the account may have added: all sessions and API keys,
   * and the passkeys and identities not in `keep`. When the mailbox adopts an account that never
   * proved it (`adopting`), its authenticator app goes too, and its password unless the recovery
   * just set a new one (`passwordReplaced`, a reset). Logged as `ways_in_ended`; the owner is
   * mailed what ended and what is left.
   */
  async recover(
    user: User,
    client: ClientInfo | null,
    reason: RecoveryReason,
    options: { keep?: KeptWaysIn; adopting?: boolean; passwordReplaced?: boolean } = {},
  ): Promise<EndedWaysIn> {
    const keep = options.keep ?? NOTHING_KEPT
    const adopting = options.adopting ?? false
    const known = client ?? { ip: null, userAgent: null }
    const ended: EndedWaysIn = {
      sessions: await this.auth.revokeSessionsOf(user.id, client),
      apiKeys: await this.apiKeys.revokeAllOf(user.id),
      passkeys: await this.passkeys.removeAllExcept(user.id, keep.passkeys, known),
      identities: await this.identities.removeAllExcept(user.id, keep.identities, known),
      password: adopting && !options.passwordReplaced ? await this.users.removePassword(user.id) : false,
      secondFactors: adopting ? await this.secondFactors.removeTotpOf(user.id, client) : false,
    }
    const remaining = await this.waysIn(user.id)
    await this.unitOfWork.run(async (unit) => {
      await this.events.record('ways_in_ended', user.id, client, { unit })
      // Adopting, the reason says too that nothing added before this proof is trusted.
      const values = { name: user.name, reason: phrase(adopting ? `reason.${reason}.adopted` : `reason.${reason}`), ended: endedPhrases(ended), remaining: remainingPhrases(remaining) }
      await this.mail.queue(unit, { template: 'ways-in-ended', to: user.email, locale: user.locale, values })
    })
    return ended
  }
}

/** What ended, as phrases of the recipient's language (the mail reads them as one list). */
function endedPhrases(ended: EndedWaysIn): MailPhrase | MailPhrase[] {
  const parts = [
    ...(ended.sessions > 0 ? [phrase('ended.sessions', { count: ended.sessions })] : []),
    ...(ended.apiKeys > 0 ? [phrase('ended.api_keys', { count: ended.apiKeys })] : []),
    ...ended.passkeys.map((name) => phrase('ended.passkey', { name })),
    ...ended.identities.map((provider) => phrase('ended.identity', { provider })),
    ...(ended.password ? [phrase('ended.password')] : []),
    ...(ended.secondFactors ? [phrase('ended.second_factor')] : []),
  ]
  return parts.length === 0 ? phrase('ended.nothing') : parts
}

/** The ways in left, as phrases of the recipient's language; a mailed reset always is one. */
function remainingPhrases(ways: WaysIn): MailPhrase[] {
  return [
    ...(ways.password ? [phrase('remaining.password')] : []),
    ...ways.passkeys.map((passkey) => phrase('remaining.passkey', { name: passkey.name })),
    ...ways.identities.map((identity) => phrase('remaining.identity', { provider: identity.provider })),
    ...(ways.authenticatorApp ? [phrase('remaining.authenticator_app')] : []),
    phrase('remaining.reset'),
  ]
}
