// The passkeys slice's settings (docs/configuration.md, Passkeys).
import type { OriginList } from '../../shared/origin-list.js'
import { parseOriginList } from '../../shared/origin-list.js'
import type { Env } from '../../shared/settings.js'
import { ConfigError, read } from '../../shared/settings.js'

/** Passkeys' relying party: WEBAUTHN_RP_ID (a host name), WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS (the page origins that may use them). */
export interface PasskeySettings {
  rpId: string
  rpName: string
  origins: OriginList
}

/**
 * Passkeys' relying party, by default PUBLIC_URL's host and origin; in development also every
 * port of http://localhost, so an app on another port works with no setting.
 */
export function passkeySettings(env: Env, publicUrl: string, development: boolean): PasskeySettings {
  const publicOrigin = new URL(publicUrl)
  const rpId = (read(env, 'WEBAUTHN_RP_ID') ?? publicOrigin.hostname).toLowerCase()
  if (!/^[a-z0-9.-]+$/.test(rpId)) throw new ConfigError(`WEBAUTHN_RP_ID must be a host name (no scheme, port or path), got "${rpId}"`)
  const fallback = [publicOrigin.origin, ...(development && rpId === 'localhost' ? ['http://localhost:*'] : [])].join(',')
  const entries = (read(env, 'WEBAUTHN_ORIGINS') ?? fallback).split(',').map((origin) => origin.trim()).filter(Boolean)
  const parsed = parseOriginList(entries)
  if ('invalid' in parsed) throw new ConfigError(`WEBAUTHN_ORIGINS must list origins such as https://app.example.com or http://localhost:* (scheme, host and port only), got "${parsed.invalid}"`)
  for (const origin of [...parsed.list.exact, ...parsed.list.anyPort]) {
    const { hostname } = new URL(origin)
    if (hostname !== rpId && !hostname.endsWith(`.${rpId}`)) throw new ConfigError(`WEBAUTHN_ORIGINS: ${origin} is not on WEBAUTHN_RP_ID ${rpId} or a subdomain of it`)
  }
  return { rpId, rpName: read(env, 'WEBAUTHN_RP_NAME') ?? rpId, origins: parsed.list }
}
