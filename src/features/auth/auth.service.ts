// Login, token rotation, logout and resolving the caller of a request.
import { randomUUID } from 'node:crypto'

import { noteWriteFor } from '../../db/replicas/request-reads.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, notAuthenticated } from '../../shared/errors.js'
import type { Signals } from '../../shared/signals.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { ApiKeyGrant, ApiKeyService } from '../api-keys/index.js'
import type { ClientInfo, LoginMethod, SecurityEventService } from '../security-events/index.js'
import type { PasswordHasher, User, UserService } from '../users/index.js'
import { accountPendingDeletion, isBanned, limitIdentity, NO_PASSWORD } from '../users/index.js'
import type { AuthRepository } from './auth.repository.js'
import type { LoginThrottle } from './login-throttle.js'
import type { RevocationStore } from './revocation-store.js'
import type { SecondFactorGate, SecondFactorProof } from './second-factor-gate.js'
import { secondFactorRequired } from './second-factor-gate.js'
import type { SignInMethod } from './sign-in-method.js'
import type { TokenActor, TokenService, VerifiedToken } from './tokens.js'

/** Active and not banned (a session that a ban raced past ends with it). */
const mayEnter = (user: User) => user.isActive && !isBanned(user)

export const INCORRECT_CREDENTIALS = 'Incorrect username or password'
/** What a wrong login or password gets, wherever a password is checked. */
export const invalidCredentials = () => new DomainError('unauthenticated', INCORRECT_CREDENTIALS, { code: 'invalid_credentials' })

/**
 * What a session proved about who holds it, at sign-in or by reauthenticating: a password, a
 * second factor (after any first factor), a passkey, or a code mailed for reauthentication. A
 * sign-in by an email link or code, or through a provider, proves only the mailbox or the
 * provider's account: no proof (null).
 */
export type SessionProof = 'password' | 'second_factor' | 'passkey' | 'email_code'

export interface SessionProofState {
  provenAt: Date | null
  proof: SessionProof | null
}

/** A freshly issued access and refresh token; the API decides how it travels (body, cookie). */
/** A browser's new session: the token pair, and the device token a login sets as its cookie. */
export interface BrowserSession {
  pair: TokenPair
  device: { token: string; expiresAt: Date }
}

export interface TokenPair {
  accessToken: string
  /** Seconds until the access token expires. */
  accessExpiresIn: number
  refreshToken: string
  refreshExpiresAt: Date
  userId: number
}

const USER_AGENT_MAX_LENGTH = 512

export interface Session {
  id: string
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
  ip: string | null
  /** The session of the request that asked. */
  current: boolean
}

export const SESSION_NOT_FOUND = 'Session not found'

/** A caller who logged in: their access token names their session. */
export interface TokenCaller {
  user: User
  token: VerifiedToken
  apiKey?: undefined
}

/** A server-to-server caller acting as the key's owner, within its scopes. */
export interface ApiKeyCaller {
  user: User
  token?: undefined
  apiKey: ApiKeyGrant
}

export type Caller = TokenCaller | ApiKeyCaller

declare module '../../plugins/authentication.js' {
  // request.caller, as src/plugins/authentication.ts resolves it for every request.
  interface CallerTypes {
    caller: Caller
    tokenCaller: TokenCaller
  }
}

/** A complete sign-in: who, into which session, how, from where, and whether the browser showed this account's device cookie. */
export interface SignIn {
  userId: number
  sessionId: string
  method: LoginMethod
  client: ClientInfo
  knownDevice: boolean
}

export interface SignInObserver {
  signedIn(signIn: SignIn): Promise<void>
}

/** What AuthService is built from. */
export interface AuthServiceDependencies {
  repository: AuthRepository
  users: UserService
  passwords: PasswordHasher
  tokens: TokenService
  revocations: RevocationStore
  events: SecurityEventService
  apiKeys: ApiKeyService
  signals: Signals
  throttle: LoginThrottle
  secondFactors: SecondFactorGate
  /** Every slice's sign-in methods (their manifests' `signInMethods`), once every service exists. */
  signInMethods: () => readonly SignInMethod[]
}

export class AuthService {
  private readonly signInObservers: SignInObserver[] = []

  private readonly repository: AuthRepository
  private readonly users: UserService
  private readonly passwords: PasswordHasher
  private readonly tokens: TokenService
  private readonly revocations: RevocationStore
  private readonly events: SecurityEventService
  private readonly apiKeys: ApiKeyService
  private readonly signals: Signals
  private readonly throttle: LoginThrottle
  private readonly secondFactors: SecondFactorGate
  private readonly signInMethods: () => readonly SignInMethod[]

  constructor(dependencies: AuthServiceDependencies) {
    this.repository = dependencies.repository
    this.users = dependencies.users
    this.passwords = dependencies.passwords
    this.tokens = dependencies.tokens
    this.revocations = dependencies.revocations
    this.events = dependencies.events
    this.apiKeys = dependencies.apiKeys
    this.signals = dependencies.signals
    this.throttle = dependencies.throttle
    this.secondFactors = dependencies.secondFactors
    this.signInMethods = dependencies.signInMethods
  }

  /** Whether `deviceToken` (a browser's device cookie) shows that browser signed in to the account before. */
  async isKnownDevice(userId: number, deviceToken: string | undefined): Promise<boolean> {
    if (deviceToken === undefined) return false
    return (await this.tokens.verifyDevice(deviceToken))?.userId === userId
  }

  /** A device token for the browser that just logged in to the account. */
  private deviceToken(userId: number): Promise<{ token: string; expiresAt: Date }> {
    return this.tokens.signDevice(userId)
  }

  /**
   * Counted by the login throttle first (429 once a budget is spent). Same error text and the
   * same hashing work whether the account is unknown or the password is wrong.
   */
  login(login: string, password: string, client: ClientInfo): Promise<BrowserSession> {
    return this.signIn('password', { login, password }, client)
  }

  /** The auth slice's own sign-in method (its manifest offers it): a login and its password. */
  readonly password: SignInMethod<{ login: string; password: string }> = {
    name: 'password',
    proves: 'password',
    complete: false,
    verify: async ({ login, password }, client) => {
      const account = await this.provePassword(login, password, client)
      // The owner asked to delete the account: the right password learns when, and how to take it back.
      if (account.deletionDueAt !== null) throw accountPendingDeletion(account.deletionDueAt)
      return account.id
    },
  }

  /**
   * A sign-in by one of the methods the slices offer: its proof checked (and counted) by the
   * method, then the browser's session, or, unless the method is a whole sign-in, the second
   * factor's challenge when the account has one.
   */
  async signIn(name: LoginMethod, proof: unknown, client: ClientInfo): Promise<BrowserSession> {
    const method = this.signInMethods().find((candidate) => candidate.name === name)
    if (!method) throw new Error(`no sign-in method is named ${name}`)
    const userId = await method.verify(proof, client)
    if (!method.complete) return this.startBrowserSession(userId, client, name)
    const user = await this.users.find(userId)
    if (!user || !user.isActive) throw notAuthenticated()
    await this.users.assertNotBanned(user)
    return this.openBrowserSession(userId, client, name, method.proves)
  }

  /**
   * Checks a login and password as a sign-in does (counted by the login throttle, the same work
   * for an unknown account, a failure logged): the account, including one in its deletion's grace
   * period; 401 `invalid_credentials` otherwise.
   */
  async provePassword(login: string, password: string, client: ClientInfo): Promise<{ id: number; deletionDueAt: string | null }> {
    await this.throttle.count(login, client.deviceToken, client.ip ?? '')
    const credentials = await this.users.findCredentials(login.trim())
    // An account made through a provider has no password: the same work as an unknown account.
    const valid = credentials && credentials.hashed_password !== NO_PASSWORD
      ? await this.passwords.verify(credentials.hashed_password, password)
      : await this.passwords.verifyAgainstDummy(password)
    if (!credentials || !valid) {
      const account = credentials ?? (await this.users.findLoginAccount(login.trim().toLowerCase()))
      this.signals.emit('login', 'failure')
      await this.events.record('login_failed', account?.id ?? null, client, { method: 'password' })
      throw invalidCredentials()
    }
    return { id: credentials.id, deletionDueAt: credentials.deletion_due_at === null ? null : toIsoString(credentials.deletion_due_at) }
  }

  /**
   * A first factor was proven `method`'s way (password, sign-up, email, provider): the browser's
   * session, or, when the user has a second factor, 401 mfa_required with a challenge for it.
   */
  async startBrowserSession(userId: number, client: ClientInfo, method: LoginMethod): Promise<BrowserSession> {
    await this.assertMayEnter(userId)
    const challenge = await this.secondFactors.challengeFor(userId, method)
    if (challenge) throw secondFactorRequired(challenge)
    // The proof a first factor gives on its own, when the account asks for no second one (a mailbox or a provider's account: none).
    const proves = this.signInMethods().find((candidate) => candidate.name === method)?.proves ?? null
    return this.openBrowserSession(userId, client, method, proves)
  }

  /**
   * The second step of a sign-in: the code (or recovery code) for the challenge an mfa_token
   * names. Counted per account (or per known device) before it is checked; five wrong codes end
   * the token.
   */
  async completeSecondFactor(mfaToken: string, proof: SecondFactorProof, client: ClientInfo): Promise<BrowserSession> {
    const challenge = await this.secondFactors.takeAttempt(mfaToken)
    const user = await this.users.find(challenge.userId)
    if (!user || !user.isActive) throw notAuthenticated()
    await this.users.assertNotBanned(user)
    await this.throttle.countSecondFactor(limitIdentity(user), user.id, client.deviceToken, client.ip ?? '')
    await this.secondFactors.prove(challenge, proof, client)
    return this.openBrowserSession(user.id, client, challenge.method, 'second_factor')
  }

  /** Removes every second factor of a user and ends their sessions (superusers; 404 when there is no such user). */
  async resetSecondFactorsOf(actor: Actor, userId: number, client: ClientInfo): Promise<void> {
    await this.users.getManaged(actor, userId)
    await this.secondFactors.removeAllOf(userId, client)
    await this.revokeSessionsOf(userId, client)
  }

  /** startSession, with the device token for the browser that signed in; then the observers hear of it (new-device alerts). */
  private async openBrowserSession(userId: number, client: ClientInfo, method: LoginMethod, proof: SessionProof | null): Promise<BrowserSession> {
    const { pair, sessionId } = await this.startSession(userId, client, method, proof)
    if (this.signInObservers.length > 0) {
      const knownDevice = await this.isKnownDevice(userId, client.deviceToken)
      for (const observer of this.signInObservers) await observer.signedIn({ userId, sessionId, method, client, knownDevice })
    }
    return { pair, device: await this.deviceToken(userId) }
  }

  /** Tells `observer` of every complete sign-in, by any method (it must not throw: a sign-in never fails for it). */
  observeSignIns(observer: SignInObserver): void {
    this.signInObservers.push(observer)
  }

  /** A new session for a user whose identity is proven `method`'s way (a login, or a sign-up that logs in), fresh when `proof` says so. */
  private async startSession(userId: number, client: ClientInfo, method: LoginMethod, proof: SessionProof | null): Promise<{ pair: TokenPair; sessionId: string }> {
    const sessionId = randomUUID()
    // The request came without a caller: the new session's reads must see what it wrote (a sign-up's user).
    noteWriteFor(userId)
    await this.repository.insertSession({
      id: sessionId,
      userId,
      expiresAt: new Date(Date.now() + this.tokens.lifetimes.refreshSeconds * 1000),
      userAgent: client.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) ?? null,
      ip: client.ip,
      proof,
    })
    this.signals.emit('login', 'success')
    await this.events.record('login_succeeded', userId, client, { method })
    return { pair: await this.issuePair(userId, sessionId), sessionId }
  }

  /**
   * A session for a superuser acting as `userId` (support impersonation): one access token
   * carrying `act`, living `seconds`, and no refresh token; no login is counted. Ending the
   * session (endSession, the user's own "log out everywhere") ends it at once.
   */
  async startImpersonation(userId: number, actor: TokenActor, seconds: number): Promise<{ accessToken: string; sessionId: string; expiresAt: Date }> {
    const sessionId = randomUUID()
    const expiresAt = new Date(Date.now() + seconds * 1000)
    // The user sees it among their sessions as support's, without the superuser's address.
    await this.repository.insertSession({ id: sessionId, userId, expiresAt, userAgent: `Support access (${actor.mode})`, ip: null, proof: null })
    const access = await this.tokens.sign('access', userId, sessionId, { ...actor, seconds })
    return { accessToken: access.token, sessionId, expiresAt: access.expiresAt }
  }

  /** Ends one session by id: every token of it stops working, in every process. */
  endSession(sessionId: string): Promise<void> {
    return this.repository.revokeSession(sessionId)
  }

  /**
   * Rotates a refresh token. Presenting one that was already used revokes its whole session, so
   * whoever holds the session's newer tokens (the thief or the victim) is logged out at once.
   */
  async refresh(refreshToken: string, client: ClientInfo): Promise<TokenPair> {
    const claims = await this.tokens.verify(refreshToken, 'refresh')
    if (!claims) throw notAuthenticated()
    const consumed = await this.repository.consumeRefreshToken(claims.jti)
    if (!consumed) {
      // A ban revoked the session: its owner is told so, and it is no reuse.
      await this.assertMayEnter(claims.userId)
      const known = await this.repository.findRefreshToken(claims.jti)
      if (known) {
        await this.repository.revokeSession(known.family_id)
        await this.events.record('refresh_token_reused', known.user_id, client)
      }
      throw notAuthenticated()
    }
    const user = await this.users.find(consumed.user_id)
    if (!user || !user.isActive) {
      await this.repository.revokeSession(consumed.family_id)
      throw notAuthenticated()
    }
    await this.users.assertNotBanned(user)
    const pair = await this.issuePair(consumed.user_id, consumed.family_id)
    await this.repository.touchSession(consumed.family_id, pair.refreshExpiresAt)
    return pair
  }

  /** Ends the caller's session (every token of it) and the session of a presented refresh token of theirs. */
  async logout(caller: TokenCaller, refreshToken: string | undefined, client: ClientInfo): Promise<void> {
    await this.revocations.revoke(caller.token.jti, caller.token.expiresAt)
    await this.repository.revokeSession(caller.token.sessionId)
    await this.events.record('logout', caller.user.id, client)
    if (refreshToken === undefined) return
    const refresh = await this.tokens.verify(refreshToken, 'refresh')
    if (refresh && refresh.userId === caller.user.id && refresh.sessionId !== caller.token.sessionId) {
      await this.repository.revokeSession(refresh.sessionId)
    }
  }

  /** Resolves an X-API-Key to its live, active owner, or fails with "Not authenticated". */
  async authenticateApiKey(key: string): Promise<ApiKeyCaller> {
    const grant = await this.apiKeys.authenticate(key)
    const user = grant && (await this.users.find(grant.userId))
    if (!grant || !user || !user.isActive) throw notAuthenticated()
    // A ban keeps the user's keys, refused until it is lifted.
    await this.users.assertNotBanned(user)
    return { user, apiKey: grant }
  }

  /** Resolves a bearer token to a live, active user in a live session, or fails with "Not authenticated". */
  async authenticate(accessToken: string): Promise<TokenCaller> {
    const token = await this.tokens.verify(accessToken, 'access')
    if (!token) throw notAuthenticated()
    const user = await this.userOfLiveToken(token)
    if (!user) {
      // A ban ended the token's session: its holder learns why.
      await this.assertMayEnter(token.userId)
      throw notAuthenticated()
    }
    return { user, token }
  }

  /** 403 `account_banned` when the user is banned now. */
  private async assertMayEnter(userId: number): Promise<void> {
    const user = await this.users.find(userId)
    if (user) await this.users.assertNotBanned(user)
  }

  /** The user a verified token speaks for while it stands (not revoked, its session live, the user active); long-lived streams ask again. */
  async userOfLiveToken(token: VerifiedToken): Promise<User | undefined> {
    if (this.revocations.inDatabase) {
      const user = await this.users.findInSession(token.userId, token.sessionId, token.jti)
      return user && mayEnter(user) ? user : undefined
    }
    const [revoked, user] = await Promise.all([
      this.revocations.isRevoked(token.jti).catch((error: unknown) => {
        this.signals.emit('store-error', 'revocation')
        throw error
      }),
      this.users.findInSession(token.userId, token.sessionId),
    ])
    return revoked || !user || !mayEnter(user) ? undefined : user
  }

  /** The caller's live sessions, newest first; `current` marks the one this request came with. */
  async sessions(caller: TokenCaller): Promise<Session[]> {
    return this.liveSessions(caller.user.id, caller.token.sessionId)
  }

  /** Any user's live sessions, newest first (superusers; 404 when there is no such user, deleted or not). */
  async sessionsOf(actor: Actor, userId: number): Promise<Session[]> {
    await this.users.getManaged(actor, userId)
    return this.liveSessions(userId)
  }

  /** Ends every session of any user (superusers); returns how many ended. */
  async endSessionsOf(actor: Actor, userId: number, client: ClientInfo): Promise<number> {
    await this.users.getManaged(actor, userId)
    return this.revokeSessionsOf(userId, client)
  }

  /** A user's live sessions, newest first, for their own data export. */
  liveSessionsOf(userId: number): Promise<Session[]> {
    return this.liveSessions(userId)
  }

  private async liveSessions(userId: number, currentSessionId?: string): Promise<Session[]> {
    const rows = await this.repository.listLiveSessions(userId)
    return rows.map((row) => ({
      id: row.id,
      createdAt: toIsoString(row.created_at),
      lastUsedAt: toIsoString(row.last_used_at),
      userAgent: row.user_agent,
      ip: row.ip,
      current: row.id === currentSessionId,
    }))
  }

  /** Ends one of the caller's own sessions (404 for anyone else's, or an ended one). */
  async revokeOwnSession(caller: TokenCaller, sessionId: string, client: ClientInfo): Promise<void> {
    const own = await this.repository.liveSessionIds(caller.user.id)
    if (!own.includes(sessionId)) throw new DomainError('not_found', SESSION_NOT_FOUND, { code: 'session_not_found' })
    await this.repository.revokeSession(sessionId)
    await this.events.record('session_revoked', caller.user.id, client)
  }

  /** How many live sessions a user has. */
  async countLiveSessions(userId: number): Promise<number> {
    return (await this.repository.liveSessionIds(userId)).length
  }

  /** Ends every session of a user but `exceptSessionId` ("log out everywhere else", password changes and resets). */
  async revokeSessionsOf(userId: number, client: ClientInfo | null, exceptSessionId?: string): Promise<number> {
    const ids = await this.repository.liveSessionIds(userId, exceptSessionId)
    for (const id of ids) await this.repository.revokeSession(id)
    if (ids.length > 0) await this.events.record('session_revoked', userId, client)
    return ids.length
  }

  /** When the caller's session last proved who holds it, and how. */
  async proofOf(caller: TokenCaller): Promise<SessionProofState> {
    const row = await this.repository.findSessionProof(caller.token.sessionId)
    return { provenAt: row?.proven_at ? new Date(toIsoString(row.proven_at)) : null, proof: (row?.proof ?? null) as SessionProof | null }
  }

  /** The caller's session proved who holds it, now (a reauthentication). */
  markProven(caller: TokenCaller, proof: SessionProof): Promise<void> {
    return this.markSessionProven(caller.token.sessionId, proof)
  }

  markSessionProven(sessionId: string, proof: SessionProof): Promise<void> {
    return this.repository.markSessionProven(sessionId, proof)
  }

  pruneExpiredState(): Promise<void> {
    return this.repository.deleteExpiredAuthState()
  }

  private async issuePair(userId: number, familyId: string): Promise<TokenPair> {
    const [access, refresh] = await Promise.all([
      this.tokens.sign('access', userId, familyId),
      this.tokens.sign('refresh', userId, familyId),
    ])
    await this.repository.insertRefreshToken({ jti: refresh.jti, familyId, userId, expiresAt: refresh.expiresAt })
    return {
      accessToken: access.token,
      accessExpiresIn: this.tokens.lifetimes.accessSeconds,
      refreshToken: refresh.token,
      refreshExpiresAt: refresh.expiresAt,
      userId,
    }
  }
}
