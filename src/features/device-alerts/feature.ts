// New-device sign-in alerts: the devices each account was signed in to from, a mail when a new
// one signs in, and the "this wasn't me" answer. It hears sign-ins through AuthService.observeSignIns.
import { type Feature, routes } from '../feature.js'
import deviceAlertRoutes from './device-alerts.v2.routes.js'

export const deviceAlertsFeature: Feature = {
  name: 'device-alerts',
  migrations: ['2026-12-04-01-known-devices'],
  routes: { v2: [routes(deviceAlertRoutes)] },
}
