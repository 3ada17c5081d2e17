// Passkeys (WebAuthn): a signed-in user registers, renames and removes them; anyone signs in with
// one (with a username, or without: a discoverable credential); and one proves the second factor
// of a sign-in. Every challenge is a one-time secret of its own kind (what it was made for),
// spent once within five minutes; the signature counter only moves forward, and a counter
// that does not (a cloned authenticator) is refused and logged.
import { createHash, randomUUID } from 'node:crypto'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import { DomainError } from '../../shared/errors.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { EnrolmentSessions, PasskeyResponse } from '../auth/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { SignInMethods } from '../sign-in-methods/index.js'
import type { User, UserService } from '../users/index.js'
import { limitIdentity } from '../users/index.js'
import type { PasskeysRepository } from './passkeys.repository.js'
import type { PasskeyRow } from './passkeys.table.js'
import type { PasskeyCreationResponse, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, Refusal, RelyingParty, StoredCredential } from './webauthn.js'
import { challengeOf, creationOptions, requestOptions, verifyAssertion, verifyCreation } from './webauthn.js'

const CHALLENGE_SECONDS = 5 * 60
export const INVALID_PASSKEY = 'Invalid passkey'
export const PASSKEY_NOT_FOUND = 'Passkey not found'

export interface Passkey {
  id: string
  name: string
  deviceType: string
  backedUp: boolean
  createdAt: string
  lastUsedAt: string | null
}

/** What a challenge was handed out for. */
type ChallengePurpose = 'register' | 'sign_in' | 'second_factor' | 'reauthenticate'
const CHALLENGE_PURPOSES: ChallengePurpose[] = ['register', 'sign_in', 'second_factor', 'reauthenticate']
/**
 * What a challenge carries besides its user (register and reauthenticate: the signed-in user;
 * sign_in: the user named, or none for a discoverable passkey; second_factor: the sign-in's user).
 */
interface ChallengeData {
  /** second_factor: the mfa_token it was made for. */
  mfaTokenHash: string | null
}
/**
 * A response that does not verify, or answers no live challenge of its kind: 401 when signing in,
 * 400 when registering; with the reason when a setting decided it (an origin, the RP id).
 */
const invalidPasskey = (signingIn: boolean, refusal?: Refusal) =>
  new DomainError(signingIn ? 'unauthenticated' : 'invalid', refusal ? `${INVALID_PASSKEY}: ${refusal.refused}` : INVALID_PASSKEY, { code: 'invalid_passkey' })
const isRefusal = (value: unknown): value is Refusal => typeof value === 'object' && value !== null && 'refused' in value
const passkeyNotFound = () => new DomainError('not_found', PASSKEY_NOT_FOUND, { code: 'passkey_not_found' })

const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  deviceType: row.device_type,
  backedUp: Boolean(row.backed_up),
  createdAt: toIsoString(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : toIsoString(row.last_used_at),
})
const storedOf = (row: PasskeyRow): StoredCredential => ({ credentialId: row.credential_id, publicKey: row.public_key, transports: row.transports ? row.transports.split(',') : [] })

/** What PasskeyService is built from. */
export interface PasskeyServiceDependencies {
  repository: PasskeysRepository
  secrets: OneTimeSecrets
  users: UserService
  events: SecurityEventService
  unitOfWork: UnitOfWork
  signInMethods: SignInMethods
  rp: RelyingParty
  sessions: EnrolmentSessions
  /** Told once per reason when a setting refused an answer (an origin WEBAUTHN_ORIGINS does not list …). */
  misconfigured?: (refusal: Refusal) => void
}

export class PasskeyService {
  private readonly challenges: Record<ChallengePurpose, SecretKind<ChallengeData>>

  private readonly repository: PasskeysRepository
  private readonly users: UserService
  private readonly events: SecurityEventService
  private readonly unitOfWork: UnitOfWork
  private readonly signInMethods: SignInMethods
  private readonly rp: RelyingParty
  private readonly sessions: EnrolmentSessions
  /** Told once per reason when a setting refused an answer (an origin WEBAUTHN_ORIGINS does not list …). */
  private readonly misconfigured: (refusal: Refusal) => void

  constructor(dependencies: PasskeyServiceDependencies) {
    this.repository = dependencies.repository
    this.users = dependencies.users
    this.events = dependencies.events
    this.unitOfWork = dependencies.unitOfWork
    this.signInMethods = dependencies.signInMethods
    this.rp = dependencies.rp
    this.sessions = dependencies.sessions
    this.misconfigured = dependencies.misconfigured ?? (() => {})
    const secrets = dependencies.secrets
    const kind = (purpose: ChallengePurpose) => secrets.kind<ChallengeData>(`webauthn_${purpose}`, { seconds: CHALLENGE_SECONDS })
    this.challenges = Object.fromEntries(CHALLENGE_PURPOSES.map((purpose) => [purpose, kind(purpose)])) as Record<ChallengePurpose, SecretKind<ChallengeData>>
  }

  async list(userId: number): Promise<Passkey[]> {
    return (await this.repository.listPasskeysOf(userId)).map(toPasskey)
  }

  /** How many passkeys the user has; inside `unit` when a change decides on it. */
  async count(userId: number, unit?: Unit): Promise<number> {
    return (unit ? this.repository.in(unit) : this.repository).countPasskeysOf(userId)
  }

  /** Creation options for a new passkey of the signed-in user; its own passkeys are excluded. */
  async registrationOptions(user: User): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.repository.listPasskeysOf(user.id)
    // The WebAuthn user handle: stable for the account, and naming nothing about it.
    const handle = new Uint8Array(createHash('sha256').update(`webauthn-user:${limitIdentity(user)}`).digest())
    const options = await creationOptions(this.rp, { handle, name: user.username, displayName: user.name }, existing.map(storedOf))
    await this.storeChallenge(options.challenge, 'register', user.id)
    return options
  }

  /**
   * Registers the passkey the response proves, for the signed-in user (session `sessionId`, which
   * has just proved it). The account's first passkey is its first second factor, or one more:
   * every other session ends, as a new authenticator app ends them.
   */
  async register(user: User, response: PasskeyCreationResponse, name: string, client: ClientInfo, sessionId: string): Promise<Passkey> {
    const challenge = await this.spendChallenge(response, 'register', false)
    if (challenge.userId !== user.id) throw invalidPasskey(false)
    const credential = await verifyCreation(this.rp, response, challenge.value)
    if (isRefusal(credential)) {
      this.misconfigured(credential)
      throw invalidPasskey(false, credential)
    }
    if (!credential) throw invalidPasskey(false)
    const passkey: Passkey = { id: randomUUID(), name, deviceType: credential.deviceType, backedUp: credential.backedUp, createdAt: new Date().toISOString(), lastUsedAt: null }
    const inserted = await this.repository.insertPasskey({
      id: passkey.id,
      user_id: user.id,
      credential_id: credential.credentialId,
      public_key: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports.join(',') || null,
      name,
      device_type: credential.deviceType,
      backed_up: credential.backedUp ? 1 : 0,
      created_at: passkey.createdAt,
    })
    if (!inserted) throw new DomainError('conflict', 'This passkey is registered already', { code: 'passkey_exists' })
    await this.events.record('passkey_added', user.id, client, { method: 'passkey' })
    if ((await this.repository.countPasskeysOf(user.id)) === 1) await this.sessions.endOthers(user.id, client, sessionId)
    await this.sessions.markProven(sessionId, 'passkey')
    return passkey
  }

  async rename(userId: number, id: string, name: string): Promise<Passkey> {
    if (!(await this.repository.renamePasskey(userId, id, name))) throw passkeyNotFound()
    const row = (await this.repository.listPasskeysOf(userId)).find((candidate) => candidate.id === id)
    if (!row) throw passkeyNotFound()
    return toPasskey(row)
  }

  /** Removes one of the user's passkeys; 409 last_sign_in_method when it is their only way in. */
  async remove(userId: number, id: string, client: ClientInfo): Promise<void> {
    const own = await this.repository.listPasskeysOf(userId)
    if (!own.some((row) => row.id === id)) throw passkeyNotFound()
    const removed = await this.unitOfWork.run(async (unit) => {
      await this.signInMethods.assertNotLast(unit, userId)
      return this.repository.in(unit).deletePasskey(userId, id)
    })
    if (!removed) throw passkeyNotFound()
    await this.events.record('passkey_removed', userId, client, { method: 'passkey' })
  }

  /** Removes every passkey of a user (a superuser's reset of their second factors); how many. */
  removeAllOf(userId: number): Promise<number> {
    return this.repository.deletePasskeysOf(userId)
  }

  /** Removes every passkey of a user but those kept (account recovery); the names of those removed, each logged. */
  async removeAllExcept(userId: number, keepIds: string[], client: ClientInfo): Promise<string[]> {
    const removed = await this.repository.deletePasskeysOfExcept(userId, keepIds)
    await Promise.all(removed.map(() => this.events.record('passkey_removed', userId, client, { method: 'passkey' })))
    return removed
  }

  /**
   * Request options for signing in: with a username, that account's passkeys; without one (or
   * for a name no account has, so the answer tells nothing), any discoverable passkey.
   */
  async signInOptions(username: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const account = username === undefined ? undefined : await this.users.findLoginAccount(username.trim().toLowerCase())
    const allow = account ? await this.repository.listPasskeysOf(account.id) : []
    const options = await requestOptions(this.rp, allow.map(storedOf))
    await this.storeChallenge(options.challenge, 'sign_in', account?.id ?? null)
    return options
  }

  /** The user a sign-in response proves (a passkey with user verification: a complete sign-in); 401 otherwise. */
  async verifySignIn(response: PasskeyResponse, client: ClientInfo): Promise<number> {
    // The route's schema checked the shape; the library checks the rest.
    const challenge = await this.spendChallenge(response, 'sign_in', true)
    const passkey = await this.repository.findPasskeyByCredentialId(response.id)
    if (!passkey || (challenge.userId !== null && challenge.userId !== passkey.user_id)) {
      await this.events.record('login_failed', passkey?.user_id ?? null, client, { method: 'passkey' })
      throw invalidPasskey(true)
    }
    await this.checkAssertion(passkey, response, challenge.value, client, 'login_failed')
    return passkey.user_id
  }

  /** Request options for the second factor of the sign-in `mfaTokenHash` names, for its user's passkeys. */
  async secondFactorOptions(userId: number, mfaTokenHash: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allow = await this.repository.listPasskeysOf(userId)
    const options = await requestOptions(this.rp, allow.map(storedOf))
    await this.storeChallenge(options.challenge, 'second_factor', userId, mfaTokenHash)
    return options
  }

  /** Whether the response proves the second factor for that sign-in (its challenge, its user's passkey). */
  proveSecondFactor(userId: number, mfaTokenHash: string, response: PasskeyResponse, client: ClientInfo): Promise<boolean> {
    return this.proveOwnPasskey(userId, 'second_factor', response, client, mfaTokenHash)
  }

  /** Request options for a signed-in user proving who they are again with one of their passkeys. */
  async reauthenticationOptions(userId: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await requestOptions(this.rp, (await this.repository.listPasskeysOf(userId)).map(storedOf))
    await this.storeChallenge(options.challenge, 'reauthenticate', userId)
    return options
  }

  /** Whether the response answers the user's reauthentication challenge with one of their passkeys. */
  proveReauthentication(userId: number, response: PasskeyResponse, client: ClientInfo): Promise<boolean> {
    return this.proveOwnPasskey(userId, 'reauthenticate', response, client, null)
  }

  /** Spends the response's challenge of `purpose` and checks it was made for `userId` (and that mfa_token) and signed by a passkey of theirs. */
  private async proveOwnPasskey(userId: number, purpose: ChallengePurpose, response: PasskeyResponse, client: ClientInfo, mfaTokenHash: string | null): Promise<boolean> {
    const challenge = challengeOf(response)
    const spent = challenge === undefined ? undefined : await this.challenges[purpose].spend(challenge)
    const passkey = await this.repository.findPasskeyByCredentialId(response.id)
    if (!spent || !challenge || spent.userId !== userId || spent.data.mfaTokenHash !== mfaTokenHash || passkey?.user_id !== userId) return false
    try {
      await this.checkAssertion(passkey, response, challenge, client)
      return true
    } catch {
      return false
    }
  }

  /** Verifies an assertion and moves the counter forward; a counter that did not move is a clone, refused and logged. */
  private async checkAssertion(passkey: PasskeyRow, response: PasskeyResponse, challenge: string, client: ClientInfo, failure?: 'login_failed'): Promise<void> {
    const counter = await verifyAssertion(this.rp, response, challenge, storedOf(passkey))
    if (counter === undefined || isRefusal(counter)) {
      if (failure) await this.events.record(failure, passkey.user_id, client, { method: 'passkey' })
      if (isRefusal(counter)) this.misconfigured(counter)
      throw invalidPasskey(true, isRefusal(counter) ? counter : undefined)
    }
    const previous = Number(passkey.counter)
    if ((counter > 0 || previous > 0) && counter <= previous) {
      await this.events.record('passkey_counter_refused', passkey.user_id, client, { method: 'passkey' })
      throw invalidPasskey(true)
    }
    if (!(await this.repository.advancePasskeyCounter(passkey.id, counter, previous))) throw invalidPasskey(true)
  }

  private async storeChallenge(challenge: string, purpose: ChallengePurpose, userId: number | null, mfaTokenHash: string | null = null): Promise<void> {
    await this.challenges[purpose].issue({ secret: challenge, userId, data: { mfaTokenHash } })
  }

  /** The live challenge of `purpose` the response answers, spent; else invalid_passkey. */
  private async spendChallenge(response: { response: { clientDataJSON: string } }, purpose: ChallengePurpose, signingIn: boolean): Promise<{ value: string; userId: number | null }> {
    const value = challengeOf(response)
    const spent = value === undefined ? undefined : await this.challenges[purpose].spend(value)
    if (!spent || value === undefined) throw invalidPasskey(signingIn)
    return { value, userId: spent.userId }
  }
}
