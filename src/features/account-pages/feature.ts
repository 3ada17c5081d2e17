// The service's own pages for what mailed links open when no frontend is configured: verifying
// an address, a password reset, a mailed sign-in, an invitation, a data export's download, and
// sign-up where anyone may sign up (/account/...).
import { type Feature, routes } from '../feature.js'
import accountPages from './account-pages.routes.js'

export const accountPagesFeature: Feature = {
  name: 'account-pages',
  appRoutes: [routes(accountPages, { prefix: '/account' })],
}
