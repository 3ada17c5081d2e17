// Login, token rotation, logout and resolving the caller of a request.
import { randomUUID } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import { DomainError, notAuthenticated } from '../../shared/errors.js'
import type { User } from '../users/user.js'
import type { UserService } from '../users/users.service.js'
import {
  consumeRefreshToken,
  deleteExpiredAuthState,
  findRefreshToken,
  insertRefreshToken,
  revokeRefreshFamily,
} from './auth.repository.js'
import type { PasswordHasher } from './passwords.js'
import type { RevocationStore } from './revocation-store.js'
import type { TokenService, VerifiedToken } from './tokens.js'

export const INCORRECT_CREDENTIALS = 'Incorrect username or password'

export interface TokenPair {
  access_token: string
  token_type: 'bearer'
  /** Seconds until the access token expires. */
  expires_in: number
  refresh_token: string
  refresh_expires_at: Date
}

export interface Caller {
  user: User
  token: VerifiedToken
}

export class AuthService {
  constructor(
    private readonly db: Executor,
    private readonly users: UserService,
    private readonly passwords: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly revocations: RevocationStore,
  ) {}

  /** Same error text and the same hashing work whether the account is unknown or the password is wrong. */
  async login(login: string, password: string): Promise<TokenPair> {
    const credentials = await this.users.findCredentials(login.trim())
    const valid = credentials
      ? await this.passwords.verify(credentials.hashed_password, password)
      : await this.passwords.verifyAgainstDummy(password)
    if (!credentials || !valid) throw new DomainError('unauthenticated', INCORRECT_CREDENTIALS)
    return this.issuePair(credentials.id, randomUUID())
  }

  /** Rotates a refresh token. Presenting one that was already used revokes its whole family. */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const claims = await this.tokens.verify(refreshToken, 'refresh')
    if (!claims) throw notAuthenticated()
    const consumed = await consumeRefreshToken(this.db, claims.jti)
    if (!consumed) {
      const known = await findRefreshToken(this.db, claims.jti)
      if (known) await revokeRefreshFamily(this.db, known.family_id)
      throw notAuthenticated()
    }
    const user = await this.users.find(consumed.user_id)
    if (!user || !user.isActive) {
      await revokeRefreshFamily(this.db, consumed.family_id)
      throw notAuthenticated()
    }
    return this.issuePair(consumed.user_id, consumed.family_id)
  }

  /** Revokes the presented access token and its session's refresh family (and a presented refresh token's). */
  async logout(caller: Caller, refreshToken?: string): Promise<void> {
    await this.revocations.revoke(caller.token.jti, caller.token.expiresAt)
    await revokeRefreshFamily(this.db, caller.token.sessionId)
    if (refreshToken === undefined) return
    const refresh = await this.tokens.verify(refreshToken, 'refresh')
    if (refresh && refresh.userId === caller.user.id && refresh.sessionId !== caller.token.sessionId) {
      await revokeRefreshFamily(this.db, refresh.sessionId)
    }
  }

  /** Resolves a bearer token to a live, active user, or fails with "Not authenticated". */
  async authenticate(accessToken: string): Promise<Caller> {
    const token = await this.tokens.verify(accessToken, 'access')
    if (!token) throw notAuthenticated()
    const [revoked, user] = await Promise.all([
      this.revocations.isRevoked(token.jti),
      this.users.find(token.userId),
    ])
    if (revoked || !user || !user.isActive) throw notAuthenticated()
    return { user, token }
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
    }
  }
}
