// Sign-in by a mailed link or code (EMAIL_LOGIN).
import { type Feature, routes } from '../feature.js'
import emailLoginRoutes from './email-login.v2.routes.js'

export const emailLoginFeature: Feature = {
  name: 'email-login',
  migrations: ['2026-11-24-01-email-login'],
  routes: { v2: [routes(emailLoginRoutes, {}, (config) => config.emailLogin.enabled)] },
}
