// The device-alerts slice's settings (docs/configuration.md, Privacy).
import { existsSync } from 'node:fs'
import path from 'node:path'

import type { Env } from '../../shared/settings.js'
import { ConfigError, linkTemplate, oneOf, read } from '../../shared/settings.js'

export interface DeviceAlertSettings {
  /** NEW_DEVICE_ALERTS: mail the owner when their account is signed in to from a device it has not used. */
  enabled: boolean
  /** NOT_ME_URL: the frontend's page for the alert's "this wasn't me" link ({token}); the service's own page when unset. */
  notMeUrl: string | undefined
  /** GEOIP_DATABASE: a MaxMind City database (.mmdb) the alert names the city from; the network alone without it. */
  geoipDatabase: string | undefined
}

export function deviceAlertSettings(env: Env): DeviceAlertSettings {
  const geoipDatabase = read(env, 'GEOIP_DATABASE')
  if (geoipDatabase !== undefined && !existsSync(geoipDatabase)) throw new ConfigError(`GEOIP_DATABASE does not exist: "${geoipDatabase}"`)
  return {
    enabled: oneOf(env, 'NEW_DEVICE_ALERTS', ['on', 'off'] as const, 'on') === 'on',
    notMeUrl: linkTemplate(env, 'NOT_ME_URL'),
    geoipDatabase: geoipDatabase === undefined ? undefined : path.resolve(geoipDatabase),
  }
}
