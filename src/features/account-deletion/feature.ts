// Account deletion with a grace period: the owner deletes their account, can take it back until it
// is due, and the purge job removes it for good then.
import { type Feature, routes } from '../feature.js'
import { DELETION_PURGE_INTERVAL_MS } from './account-deletion.service.js'
import accountDeletionRoutes from './account-deletion.v2.routes.js'

export const accountDeletionFeature: Feature = {
  name: 'account-deletion',
  migrations: ['2026-12-03-01-account-deletion'],
  routes: { v2: [routes(accountDeletionRoutes)] },
  jobs: ({ services }) => [{ name: 'account-deletions', intervalMs: DELETION_PURGE_INTERVAL_MS, run: () => services.accountDeletion.purgeDue() }],
}
