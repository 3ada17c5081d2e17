// The caller's account: verification, password reset and change, email change and its undo.
import { type Feature, routes } from '../feature.js'
import accountRoutes from './account.routes.js'
import { AccountService } from './account.service.js'

interface AccountServices {
  account: AccountService
}

export const accountFeature: Feature<AccountServices> = {
  name: 'account',
  needs: ['one-time-secrets', 'users', 'auth', 'api-keys', 'recovery', 'mail', 'security-events', 'rate-limits'],
  create({ config, logger, unitOfWork, peers }) {
    const account = new AccountService({
      secrets: peers.oneTimeSecrets,
      unitOfWork,
      users: peers.users,
      auth: peers.auth,
      apiKeys: peers.apiKeys,
      recovery: peers.recovery,
      mail: peers.mail,
      events: peers.securityEvents,
      limits: peers.rateLimits,
      config: config.mail,
      onBackgroundError: (error) => logger.error({ err: error }, 'mailing a password-reset link failed'),
    })
    return { account }
  },

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
