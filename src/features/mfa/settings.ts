// The mfa slice's settings (docs/configuration.md, Second factors).
import type { Env } from '../../shared/settings.js'
import { boolean, integer, read } from '../../shared/settings.js'

export interface MfaSettings {
  /** Second-factor attempts per account, address and device an hour (MFA_RATE_LIMIT). */
  rateLimit: number
  /** The name authenticator apps show (MFA_ISSUER; PUBLIC_URL's host unless set). */
  issuer: string
  /** REQUIRE_MFA_FOR_SUPERUSERS. */
  requireForSuperusers: boolean
}

export function mfaSettings(env: Env, publicUrl: string, development: boolean): MfaSettings {
  return {
    rateLimit: integer(env, 'MFA_RATE_LIMIT', development ? 100 : 10, 1, 1_000_000),
    issuer: read(env, 'MFA_ISSUER') ?? new URL(publicUrl).host,
    requireForSuperusers: boolean(env, 'REQUIRE_MFA_FOR_SUPERUSERS', false),
  }
}
