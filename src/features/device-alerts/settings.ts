// The device-alerts slice's settings (docs/configuration.md, Privacy).
import type { Env } from '../../shared/settings.js'
import { linkTemplate, oneOf } from '../../shared/settings.js'

export interface DeviceAlertSettings {
  /** NEW_DEVICE_ALERTS: mail the owner when their account is signed in to from a device it has not used. */
  enabled: boolean
  /** NOT_ME_URL: the frontend's page for the alert's "this wasn't me" link ({token}); the service's own page when unset. */
  notMeUrl: string | undefined
}

export function deviceAlertSettings(env: Env): DeviceAlertSettings {
  return { enabled: oneOf(env, 'NEW_DEVICE_ALERTS', ['on', 'off'] as const, 'on') === 'on', notMeUrl: linkTemplate(env, 'NOT_ME_URL') }
}
