// Account deletion with a grace period: the owner deletes their account, can take it back until it
// is due, and the purge job removes it for good then.
import { type Feature, routes } from '../feature.js'
import { DELETION_PURGE_INTERVAL_MS } from './account-deletion.service.js'
import { AccountDeletionService } from './account-deletion.service.js'
import accountDeletionRoutes from './account-deletion.v2.routes.js'
import { accountDeletionErrorCodes } from './errors.js'
import { type AccountDeletionSettings, accountDeletionSettings } from './settings.js'

interface AccountDeletionServices {
  accountDeletion: AccountDeletionService
}

export const accountDeletionFeature: Feature<AccountDeletionServices, { accountDeletion: AccountDeletionSettings }> = {
  name: 'account-deletion',
  settings: (env) => ({ accountDeletion: accountDeletionSettings(env) }),
  errors: accountDeletionErrorCodes,
  needs: ['users', 'auth', 'posts', 'security-events', 'mail', 'one-time-secrets'],
  calls: ['orgs', 'comments'],
  create({ config, logger, peers }) {
    const accountDeletion = new AccountDeletionService({
      users: peers.users,
      auth: peers.auth,
      posts: peers.posts,
      events: peers.securityEvents,
      mail: peers.mail,
      secrets: peers.oneTimeSecrets,
      settings: { ...config.accountDeletion, publicUrl: config.mail.publicUrl },
      logger,
      assertRemovable: (unit, userId) => peers.orgs.assertNotLastOwner(unit, userId),
      comments: { handOverOf: (unit, from, to) => peers.comments.handOverOf(unit, from, to) },
    })
    return { accountDeletion }
  },

  migrations: ['2026-12-03-01-account-deletion'],
  routes: { v2: [routes(accountDeletionRoutes)] },
  jobs: ({ services }) => [{ name: 'account-deletions', intervalMs: DELETION_PURGE_INTERVAL_MS, run: () => services.accountDeletion.purgeDue() }],
}
