// The email-login slice's settings (docs/configuration.md, Sign-in by email).
import type { Env } from '../../shared/settings.js'
import { integer, oneOf } from '../../shared/settings.js'

export interface EmailLoginSettings {
  /** EMAIL_LOGIN: whether its routes exist at all. */
  enabled: boolean
  /** Sign-in mails per address and per email an hour (EMAIL_LOGIN_RATE_LIMIT). */
  rateLimit: number
}

export function emailLoginSettings(env: Env, development: boolean): EmailLoginSettings {
  return {
    enabled: oneOf(env, 'EMAIL_LOGIN', ['on', 'off'] as const, 'on') === 'on',
    rateLimit: integer(env, 'EMAIL_LOGIN_RATE_LIMIT', development ? 50 : 5, 1, 1_000_000),
  }
}
