// New-device sign-in alerts: the devices each account was signed in to from, a mail when a new
// one signs in, and the "this wasn't me" answer. It hears sign-ins through AuthService.observeSignIns.
import { type Feature, routes } from '../feature.js'
import { DeviceAlertService } from './device-alerts.service.js'
import deviceAlertRoutes from './device-alerts.v2.routes.js'
import { knownDevicesFunctions, knownDevicesReadTargets } from './known-devices.repository.js'
import { Places } from './places.js'
import { type DeviceAlertSettings, deviceAlertSettings } from './settings.js'

interface DeviceAlertsServices {
  deviceAlerts: DeviceAlertService
}

export const deviceAlertsFeature: Feature<DeviceAlertsServices, { deviceAlerts: DeviceAlertSettings }> = {
  name: 'device-alerts',
  settings: (env) => ({ deviceAlerts: deviceAlertSettings(env) }),
  needs: ['users', 'auth', 'account', 'mail', 'security-events', 'one-time-secrets'],
  create({ config, logger, bind, unitOfWork, peers }) {
    const settings = config.deviceAlerts
    const deviceAlerts = new DeviceAlertService({
      devices: bind(knownDevicesFunctions, knownDevicesReadTargets),
      users: peers.users,
      auth: peers.auth,
      account: peers.account,
      unitOfWork,
      mail: peers.mail,
      events: peers.securityEvents,
      secrets: peers.oneTimeSecrets,
      settings: { ...settings, publicUrl: config.mail.publicUrl },
      logger,
      places: settings.geoipDatabase === undefined ? undefined : Places.open(settings.geoipDatabase),
    })
    if (settings.enabled) peers.auth.observeSignIns(deviceAlerts)
    return { deviceAlerts }
  },

  migrations: ['2026-12-04-01-known-devices'],
  routes: { v2: [routes(deviceAlertRoutes)] },
}
