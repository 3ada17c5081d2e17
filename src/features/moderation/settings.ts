// The moderation slice's settings (docs/configuration.md, Moderation).
import type { Env } from '../../shared/settings.js'
import { oneOf } from '../../shared/settings.js'

export interface ModerationSettings {
  /** IMPERSONATION_NOTIFY: `mail` tells the user by mail when support opens their account (it is in their security log either way). */
  impersonationNotify: 'off' | 'mail'
}

export function moderationSettings(env: Env): ModerationSettings {
  return { impersonationNotify: oneOf(env, 'IMPERSONATION_NOTIFY', ['off', 'mail'] as const, 'off') }
}
