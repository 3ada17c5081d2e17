import { createSecretKey, randomUUID } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { SignJWT, jwtVerify } from 'jose'

export type TokenType = 'access' | 'refresh'

export const TOKEN_ISSUER = 'user-post-service'
export const TOKEN_AUDIENCE = 'user-post-service'
/** How long a browser stays a known device for its account's logins. */
export const DEVICE_TOKEN_SECONDS = 365 * 24 * 60 * 60

export interface VerifiedToken {
  userId: number
  jti: string
  /** The login session (refresh-token family) the token belongs to. */
  sessionId: string
  expiresAt: Date
}

export interface SignedToken {
  token: string
  jti: string
  expiresAt: Date
}

export interface TokenLifetimes {
  accessSeconds: number
  refreshSeconds: number
}

/** HS256 JWTs with sub, jti, sid, typ, iat, exp, iss and aud; nothing but HS256 is accepted. */
export class TokenService {
  private readonly key: KeyObject

  constructor(
    secret: string,
    readonly lifetimes: TokenLifetimes,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'))
  }

  async sign(type: TokenType, userId: number, sessionId: string): Promise<SignedToken> {
    const jti = randomUUID()
    const issuedAt = Math.floor(Date.now() / 1000)
    const lifetime = type === 'access' ? this.lifetimes.accessSeconds : this.lifetimes.refreshSeconds
    const expiresAt = issuedAt + lifetime
    const token = await new SignJWT({ typ: type, sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(userId))
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .sign(this.key)
    return { token, jti, expiresAt: new Date(expiresAt * 1000) }
  }

  /**
   * A device token (OWASP device cookies): proof that this browser once logged in to the account,
   * which lets it through the per-account lockout with a budget of its own.
   */
  async signDevice(userId: number): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(Date.now() / 1000)
    const expiresAt = issuedAt + DEVICE_TOKEN_SECONDS
    const token = await new SignJWT({ typ: 'device' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(userId))
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .sign(this.key)
    return { token, expiresAt: new Date(expiresAt * 1000) }
  }

  async verifyDevice(token: string): Promise<{ userId: number; deviceId: string } | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp'],
      })
      const userId = Number(payload.sub)
      if (payload.typ !== 'device' || !Number.isSafeInteger(userId) || typeof payload.jti !== 'string') return undefined
      return { userId, deviceId: payload.jti }
    } catch {
      return undefined
    }
  }

  /** Returns the token's claims, or undefined for anything forged, expired, malformed or of the wrong type. */
  async verify(token: string, type: TokenType): Promise<VerifiedToken | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      })
      const userId = Number(payload.sub)
      if (payload.typ !== type || !Number.isSafeInteger(userId) || userId < 1) return undefined
      if (typeof payload.jti !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') {
        return undefined
      }
      return { userId, jti: payload.jti, sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000) }
    } catch {
      return undefined
    }
  }
}
