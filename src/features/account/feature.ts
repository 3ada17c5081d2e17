// The caller's account: verification, password reset and change, email change and its undo.
import { type Feature, routes } from '../feature.js'
import accountRoutes from './account.routes.js'

export const accountFeature: Feature = {
  name: 'account',
  migrations: ['2026-11-22-02-account-lifecycle'],
  routes: {
    v1: [routes(accountRoutes, { resetConfirmation: 'plain' })],
    v2: [routes(accountRoutes, { resetConfirmation: 'own' })],
  },
  subscribe({ domainEvents, services }) {
    // The old address hears of the change (with its undo link) once the change is committed.
    domainEvents.subscribe('user.email_changed', ({ user, previousEmail }) => services.account.emailChanged(user, previousEmail))
  },
}
