import { randomUUID, webcrypto } from 'node:crypto'

import type { JWTVerifyOptions } from 'jose'
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose'

import { DomainError } from '../../shared/errors.js'
import { keyIdOf } from '../../shared/key-id.js'
import type { SigningKeys } from './signing-keys.js'

export type TokenType = 'access' | 'refresh'

export const TOKEN_ISSUER = 'user-post-service'
export const TOKEN_AUDIENCE = 'user-post-service'
/** How long a browser stays a known device for its account's logins. */
export const DEVICE_TOKEN_SECONDS = 365 * 24 * 60 * 60

/** read_only: every change refused; full: changes but the account's ways in (src/features/moderation). */
export type ImpersonationMode = 'read_only' | 'full'

/** A superuser acting as the token's user (the `act` claim, RFC 8693), in `mode` (the `imp` claim). */
export interface TokenActor {
  superuserId: number
  mode: ImpersonationMode
}

export interface VerifiedToken {
  userId: number
  jti: string
  /** The login session (refresh-token family) the token belongs to. */
  sessionId: string
  expiresAt: Date
  /** Set when a superuser acts as the user: a support impersonation. */
  actor?: TokenActor
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


/** Access tokens verified lately, by their text: a token used again costs no signature check. */
const VERIFIED_KEPT = 10_000

/**
 * JWTs with sub, jti, sid, typ, iat, exp, iss and aud, each naming its key by `kid`. Access
 * tokens are signed with the asymmetric signing key (JWT_ALGORITHM EdDSA, ES256 or RS256,
 * published at /.well-known/jwks.json) when there is one, else with SECRET_KEY (HS256); refresh
 * and device tokens, which nobody else reads, always with SECRET_KEY. The key a token names
 * decides the one algorithm it may use: no algorithm switching, no `none`. Tokens signed with a
 * key in SECRET_KEY_PREVIOUS, or with a retired signing key, keep working until they expire.
 */
export class TokenService {
  private readonly key: Promise<HmacKey>
  private readonly kid: string
  private readonly keysById: Map<string, Promise<HmacKey>>
  private readonly allKeys: Promise<HmacKey>[]
  private readonly verified = new Map<string, VerifiedToken>()

  constructor(
    secret: string,
    readonly lifetimes: TokenLifetimes,
    previousSecrets: string[] = [],
    /** Undefined: access tokens are HS256 too (JWT_ALGORITHM=HS256). */
    private readonly signingKeys: SigningKeys | undefined = undefined,
  ) {
    this.key = importHmacKey(secret)
    this.kid = keyIdOf(secret)
    const previous = previousSecrets.map((old) => [keyIdOf(old), importHmacKey(old)] as const)
    this.keysById = new Map([[this.kid, this.key], ...previous])
    this.allKeys = [this.key, ...previous.map(([, key]) => key)]
    // A key deleted (after a leak, or its tokens expired) must not live on in the tokens it verified.
    signingKeys?.onKeyDropped(() => this.verified.clear())
  }

  /**
   * Verifies with the key the token names by `kid`, in that key's one algorithm: SECRET_KEY's (and
   * earlier ones') with HS256, a signing key with its own; a token from before key ids (no kid) is
   * tried against each SECRET_KEY. Throws for anything else.
   */
  private async verifyWithKeys(token: string, options: JWTVerifyOptions) {
    const { kid } = decodeProtectedHeader(token)
    if (kid !== undefined && !this.keysById.has(kid) && this.signingKeys) {
      const signingKey = await this.signingKeys.find(kid)
      if (!signingKey) throw new Error('unknown key id')
      return jwtVerify(token, signingKey.publicKey, { ...options, algorithms: [signingKey.algorithm] })
    }
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

  /** `impersonation`: an access token for a superuser acting as the user, living `seconds`. */
  async sign(type: TokenType, userId: number, sessionId: string, impersonation?: TokenActor & { seconds: number }): Promise<SignedToken> {
    const jti = randomUUID()
    const issuedAt = Math.floor(Date.now() / 1000)
    const lifetime = impersonation?.seconds ?? (type === 'access' ? this.lifetimes.accessSeconds : this.lifetimes.refreshSeconds)
    const expiresAt = issuedAt + lifetime
    const signingKey = type === 'access' && this.signingKeys ? await this.signingKeys.current() : undefined
    const claims = impersonation ? { act: { sub: String(impersonation.superuserId) }, imp: impersonation.mode } : {}
    const token = await new SignJWT({ typ: type, sid: sessionId, ...claims })
      .setProtectedHeader(signingKey ? { alg: signingKey.algorithm, typ: 'JWT', kid: signingKey.kid } : { alg: 'HS256', typ: 'JWT', kid: this.kid })
      .setSubject(String(userId))
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .sign(signingKey?.privateKey ?? (await this.key))
    return { token, jti, expiresAt: new Date(expiresAt * 1000) }
  }

  /** The public signing keys, for /.well-known/jwks.json (none with JWT_ALGORITHM=HS256). */
  async jwks(): Promise<{ keys: object[] }> {
    return this.signingKeys ? this.signingKeys.jwks() : { keys: [] }
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

  /**
   * Returns the token's claims, or undefined for anything forged, expired, malformed or of the
   * wrong type. An access token verified lately is taken from memory (its text is the key), until
   * it expires.
   */
  async verify(token: string, type: TokenType): Promise<VerifiedToken | undefined> {
    if (type === 'access') {
      const known = this.verified.get(token)
      if (known) {
        if (known.expiresAt.getTime() > Date.now()) return known
        this.verified.delete(token)
        return undefined
      }
    }
    const verified = await this.verifySigned(token, type)
    if (verified && type === 'access') {
      // The oldest goes first: a Map keeps insertion order.
      if (this.verified.size >= VERIFIED_KEPT) this.verified.delete(this.verified.keys().next().value as string)
      this.verified.set(token, verified)
    }
    return verified
  }

  private async verifySigned(token: string, type: TokenType): Promise<VerifiedToken | undefined> {
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
      const verified: VerifiedToken = { userId, jti: payload.jti, sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000) }
      if (payload.act === undefined && payload.imp === undefined) return verified
      const actor = actorOf(payload.act, payload.imp)
      return actor && type === 'access' ? { ...verified, actor } : undefined
    } catch (error) {
      // A signing key that could not be read is an outage (503), not a bad token.
      if (error instanceof DomainError) throw error
      return undefined
    }
  }
}

/** The superuser of an impersonation token's `act` and `imp` claims; undefined for anything malformed. */
function actorOf(act: unknown, mode: unknown): TokenActor | undefined {
  const superuserId = typeof act === 'object' && act !== null && 'sub' in act ? Number(act.sub) : NaN
  if (!Number.isSafeInteger(superuserId) || superuserId < 1 || (mode !== 'read_only' && mode !== 'full')) return undefined
  return { superuserId, mode }
}
