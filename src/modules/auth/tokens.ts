import { createHash, randomUUID, webcrypto } from 'node:crypto'

import type { JWTVerifyOptions } from 'jose'
import { decodeProtectedHeader, jwtVerify,SignJWT } from 'jose'

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

type HmacKey = webcrypto.CryptoKey

/**
 * The secret as a WebCrypto key, imported once. jose works on WebCrypto keys: handed the secret
 * as bytes or a KeyObject it imports a new key for every token it verifies, a large share of
 * each authenticated request (docs/performance.md).
 */
const importHmacKey = (secret: string): Promise<HmacKey> =>
  webcrypto.subtle.importKey('raw', Buffer.from(secret, 'utf8'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])

/** A key's id in token headers: a fingerprint that names the key without revealing it. */
export const keyIdOf = (secret: string) => createHash('sha256').update(`kid:${secret}`).digest('hex').slice(0, 16)

/**
 * HS256 JWTs with sub, jti, sid, typ, iat, exp, iss and aud; nothing but HS256 is accepted.
 * Tokens are signed with SECRET_KEY and name it by `kid`; tokens signed with a key listed in
 * SECRET_KEY_PREVIOUS keep working, so a key can be rotated without logging everyone out.
 */
export class TokenService {
  private readonly key: Promise<HmacKey>
  private readonly kid: string
  private readonly keysById: Map<string, Promise<HmacKey>>
  private readonly allKeys: Promise<HmacKey>[]

  constructor(
    secret: string,
    readonly lifetimes: TokenLifetimes,
    previousSecrets: string[] = [],
  ) {
    this.key = importHmacKey(secret)
    this.kid = keyIdOf(secret)
    const previous = previousSecrets.map((old) => [keyIdOf(old), importHmacKey(old)] as const)
    this.keysById = new Map([[this.kid, this.key], ...previous])
    this.allKeys = [this.key, ...previous.map(([, key]) => key)]
  }

  /**
   * Verifies with the key the token names by `kid`; a token from before key ids (no kid) is
   * tried against each known key. Throws for anything else.
   */
  private async verifyWithKeys(token: string, options: JWTVerifyOptions) {
    const { kid } = decodeProtectedHeader(token)
    const candidates = kid === undefined ? this.allKeys : [this.keysById.get(kid)].filter((key) => key !== undefined)
    // No Error made up front: capturing a stack on every verification costs more than the check.
    let failure: unknown
    for (const key of candidates) {
      try {
        return await jwtVerify(token, await key, options)
      } catch (error) {
        failure = error
      }
    }
    throw failure ?? new Error('unknown key id')
  }

  async sign(type: TokenType, userId: number, sessionId: string): Promise<SignedToken> {
    const jti = randomUUID()
    const issuedAt = Math.floor(Date.now() / 1000)
    const lifetime = type === 'access' ? this.lifetimes.accessSeconds : this.lifetimes.refreshSeconds
    const expiresAt = issuedAt + lifetime
    const token = await new SignJWT({ typ: type, sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.kid })
      .setSubject(String(userId))
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .sign(await this.key)
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
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.kid })
      .setSubject(String(userId))
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .sign(await this.key)
    return { token, expiresAt: new Date(expiresAt * 1000) }
  }

  async verifyDevice(token: string): Promise<{ userId: number; deviceId: string } | undefined> {
    try {
      const { payload } = await this.verifyWithKeys(token, {
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
      const { payload } = await this.verifyWithKeys(token, {
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
