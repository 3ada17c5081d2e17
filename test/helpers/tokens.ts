// Access tokens made by hand, to present forged, expired, misaddressed and unsigned ones.
import { createSecretKey } from 'node:crypto'

import { SignJWT, UnsecuredJWT } from 'jose'

import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/features/auth/index.js'
import { TEST_SECRET_KEY } from './app.js'

export interface TokenOptions {
  /** Another signing key than the test app's. */
  secret?: string
  /** Expiry in seconds since the epoch; ten minutes from now by default. */
  expiresAt?: number
  audience?: string
  issuer?: string
  /** Another HMAC algorithm than HS256, with the same key. */
  algorithm?: 'HS256' | 'HS384' | 'HS512'
  /** A key id in the header (none by default: tried against every known key). */
  kid?: string
}

/** An HS256 access token with our claims (overridable by `claims`, `sub` included). */
export function signToken(claims: Record<string, unknown>, options: TokenOptions = {}): Promise<string> {
  return new SignJWT({ typ: 'access', sid: 'session', ...claims })
    .setProtectedHeader({ alg: options.algorithm ?? 'HS256', ...(options.kid === undefined ? {} : { kid: options.kid }) })
    .setSubject(String(claims.sub ?? '1'))
    .setJti('forged-jti')
    .setIssuedAt()
    .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 600)
    .setIssuer(options.issuer ?? TOKEN_ISSUER)
    .setAudience(options.audience ?? TOKEN_AUDIENCE)
    .sign(createSecretKey(Buffer.from(options.secret ?? TEST_SECRET_KEY)))
}

/** An otherwise valid access token with `alg: none` and no signature. */
export function unsignedToken(userId: number): string {
  return new UnsecuredJWT({ typ: 'access', sid: 's', jti: 'j' })
    .setSubject(String(userId))
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('10m')
    .encode()
}

/** The login session (`sid`) an access or refresh token of ours belongs to. */
export function sessionOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sid?: unknown }
  if (typeof payload.sid !== 'string') throw new Error('token without a session')
  return payload.sid
}
