// Login, token rotation, logout and resolving the caller of a request.
import { randomUUID } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, notAuthenticated } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { Signals } from '../../shared/signals.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { ApiKeyGrant } from '../api-keys/api-key.js'
import type { ApiKeyService } from '../api-keys/api-keys.service.js'
import type { ClientInfo } from '../security-events/security-event.js'
import type { SecurityEventService } from '../security-events/security-events.service.js'
import type { User } from '../users/user.js'
import type { UserService } from '../users/users.service.js'
import {
  consumeRefreshToken,
  deleteExpiredAuthState,
  findRefreshToken,
  insertRefreshToken,
  insertSession,
  listLiveSessions,
  liveSessionIds,
  revokeSession,
  touchSession,
} from './auth.repository.js'
import type { PasswordHasher } from './passwords.js'
import type { RevocationStore } from './revocation-store.js'
import type { TokenService, VerifiedToken } from './tokens.js'

export const INCORRECT_CREDENTIALS = 'Incorrect username or password'

/**
 * What a login attempt is counted against. A browser holding a valid device token for the
 * account it logs in to is counted on its own (`device`); any other client is counted per
 * address and per account (`account`: the resolved account, or the normalised name when none
 * matches). Keys are hashed, so any login name makes a key of bounded length.
 */
export type LoginLimitKey = { device: string } | { account: string }

export interface TokenPair {
  access_token: string
  token_type: 'bearer'
  /** Seconds until the access token expires. */
  expires_in: number
  refresh_token: string
  refresh_expires_at: Date
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

export class AuthService {
  constructor(
    private readonly db: Executor,
    private readonly users: UserService,
    private readonly passwords: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly revocations: RevocationStore,
    private readonly events: SecurityEventService,
    private readonly apiKeys: ApiKeyService,
    private readonly signals: Signals,
  ) {}

  async loginLimitKey(login: string, deviceToken: string | undefined): Promise<LoginLimitKey> {
    const name = login.trim().toLowerCase()
    const [account, device] = await Promise.all([
      this.users.findLoginAccount(name),
      deviceToken === undefined ? undefined : this.tokens.verifyDevice(deviceToken),
    ])
    if (device && account && device.userId === account.id) return { device: hashedKey(device.deviceId) }
    return { account: hashedKey(account ? `user:${account.identity}` : `name:${name}`) }
  }

  /** A device token for the browser that just logged in to the account. */
  deviceToken(userId: number): Promise<{ token: string; expiresAt: Date }> {
    return this.tokens.signDevice(userId)
  }

  /** Same error text and the same hashing work whether the account is unknown or the password is wrong. */
  async login(login: string, password: string, client: ClientInfo): Promise<TokenPair> {
    const credentials = await this.users.findCredentials(login.trim())
    const valid = credentials
      ? await this.passwords.verify(credentials.hashed_password, password)
      : await this.passwords.verifyAgainstDummy(password)
    if (!credentials || !valid) {
      const account = credentials ?? (await this.users.findLoginAccount(login.trim().toLowerCase()))
      this.signals.emit('login', 'failure')
      await this.events.record('login_failed', account?.id ?? null, client)
      throw new DomainError('unauthenticated', INCORRECT_CREDENTIALS)
    }
    const sessionId = randomUUID()
    await insertSession(this.db, {
      id: sessionId,
      userId: credentials.id,
      expiresAt: new Date(Date.now() + this.tokens.lifetimes.refreshSeconds * 1000),
      userAgent: client.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) ?? null,
      ip: client.ip,
    })
    this.signals.emit('login', 'success')
    await this.events.record('login_succeeded', credentials.id, client)
    return this.issuePair(credentials.id, sessionId)
  }

  /**
   * Rotates a refresh token. Presenting one that was already used revokes its whole session, so
   * whoever holds the session's newer tokens (the thief or the victim) is logged out at once.
   */
  async refresh(refreshToken: string, client: ClientInfo): Promise<TokenPair> {
    const claims = await this.tokens.verify(refreshToken, 'refresh')
    if (!claims) throw notAuthenticated()
    const consumed = await consumeRefreshToken(this.db, claims.jti)
    if (!consumed) {
      const known = await findRefreshToken(this.db, claims.jti)
      if (known) {
        await revokeSession(this.db, known.family_id)
        await this.events.record('refresh_token_reused', known.user_id, client)
      }
      throw notAuthenticated()
    }
    const user = await this.users.find(consumed.user_id)
    if (!user || !user.isActive) {
      await revokeSession(this.db, consumed.family_id)
      throw notAuthenticated()
    }
    const pair = await this.issuePair(consumed.user_id, consumed.family_id)
    await touchSession(this.db, consumed.family_id, pair.refresh_expires_at)
    return pair
  }

  /** Ends the caller's session (every token of it) and the session of a presented refresh token of theirs. */
  async logout(caller: TokenCaller, refreshToken: string | undefined, client: ClientInfo): Promise<void> {
    await this.revocations.revoke(caller.token.jti, caller.token.expiresAt)
    await revokeSession(this.db, caller.token.sessionId)
    await this.events.record('logout', caller.user.id, client)
    if (refreshToken === undefined) return
    const refresh = await this.tokens.verify(refreshToken, 'refresh')
    if (refresh && refresh.userId === caller.user.id && refresh.sessionId !== caller.token.sessionId) {
      await revokeSession(this.db, refresh.sessionId)
    }
  }

  /** Resolves a bearer token to a live, active user in a live session, or fails with "Not authenticated". */
  /** Resolves an X-API-Key to its live, active owner, or fails with "Not authenticated". */
  async authenticateApiKey(key: string): Promise<ApiKeyCaller> {
    const grant = await this.apiKeys.authenticate(key)
    const user = grant && (await this.users.find(grant.userId))
    if (!grant || !user || !user.isActive) throw notAuthenticated()
    return { user, apiKey: grant }
  }

  async authenticate(accessToken: string): Promise<TokenCaller> {
    const token = await this.tokens.verify(accessToken, 'access')
    if (!token) throw notAuthenticated()
    const [revoked, user] = await Promise.all([
      this.revocations.isRevoked(token.jti).catch((error: unknown) => {
        this.signals.emit('store-error', 'revocation')
        throw error
      }),
      this.users.findInSession(token.userId, token.sessionId),
    ])
    if (revoked || !user || !user.isActive) throw notAuthenticated()
    return { user, token }
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

  private async liveSessions(userId: number, currentSessionId?: string): Promise<Session[]> {
    const rows = await listLiveSessions(this.db, userId)
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
    const own = await liveSessionIds(this.db, caller.user.id)
    if (!own.includes(sessionId)) throw new DomainError('not_found', SESSION_NOT_FOUND)
    await revokeSession(this.db, sessionId)
    await this.events.record('session_revoked', caller.user.id, client)
  }

  /** Ends every session of a user but `exceptSessionId` ("log out everywhere else", password changes and resets). */
  async revokeSessionsOf(userId: number, client: ClientInfo | null, exceptSessionId?: string): Promise<number> {
    const ids = await liveSessionIds(this.db, userId, exceptSessionId)
    for (const id of ids) await revokeSession(this.db, id)
    if (ids.length > 0) await this.events.record('session_revoked', userId, client)
    return ids.length
  }

  pruneExpiredState(): Promise<void> {
    return deleteExpiredAuthState(this.db)
  }

  private async issuePair(userId: number, familyId: string): Promise<TokenPair> {
    const [access, refresh] = await Promise.all([
      this.tokens.sign('access', userId, familyId),
      this.tokens.sign('refresh', userId, familyId),
    ])
    await insertRefreshToken(this.db, { jti: refresh.jti, familyId, userId, expiresAt: refresh.expiresAt })
    return {
      access_token: access.token,
      token_type: 'bearer',
      expires_in: this.tokens.lifetimes.accessSeconds,
      refresh_token: refresh.token,
      refresh_expires_at: refresh.expiresAt,
      userId,
    }
  }
}
