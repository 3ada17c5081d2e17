// Abuse protection: CAPTCHA on the doors (sign-up, password login, mailed sign-in and reset
// requests, invitations) when risk is raised, breached passwords refused, and address domains
// blocked. The doors' gate is an app plugin (captcha.http.ts) registered before every route.
import { type Feature, routes } from '../feature.js'
import emailDomainRoutes from './email-domains.v2.routes.js'

export const abuseFeature: Feature = {
  name: 'abuse',
  migrations: ['2026-12-01-01-abuse-protection'],
  routes: { v2: [routes(emailDomainRoutes, { prefix: '/admin' })] },
}
