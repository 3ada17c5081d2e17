// Where a sign-in flow may send a browser back to (AUTH_REDIRECT_ORIGINS): an absolute http(s)
// URL whose origin is listed. Anything else is an open redirect, refused before any mail or
// provider sees it.
import { DomainError } from './errors.js'
import type { OriginList } from './origin-list.js'
import { originMatcher } from './origin-list.js'

export const INVALID_REDIRECT = 'Invalid redirect'

export class RedirectAllowList {
  private readonly listed: (origin: string) => boolean

  constructor(readonly origins: OriginList) {
    this.listed = originMatcher(origins)
  }

  /** The URL, normalised, when its origin is listed; undefined otherwise. */
  allowed(url: string): string | undefined {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return undefined
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.username !== '' || parsed.password !== '') return undefined
    return this.listed(parsed.origin) ? parsed.href : undefined
  }

  /** The URL, normalised; 400 `invalid_redirect`, naming the origin and the setting, when its origin is not listed. */
  check(url: string): string {
    const allowed = this.allowed(url)
    if (allowed === undefined) throw new DomainError('invalid', `${INVALID_REDIRECT}: ${reasonOf(url)}`, { code: 'invalid_redirect' })
    return allowed
  }
}

/** Why a redirect_to is refused, naming what it saw and the setting that decides. */
function reasonOf(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'redirect_to must be an absolute http or https URL'
  }
  if (!['http:', 'https:'].includes(parsed.protocol)) return 'redirect_to must be an absolute http or https URL'
  if (parsed.username !== '' || parsed.password !== '') return 'redirect_to must not carry credentials'
  return `${parsed.origin} is not in AUTH_REDIRECT_ORIGINS`
}
