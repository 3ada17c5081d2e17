// Users: reading, updating, deleting and restoring them, their directory and search index.
import { type Feature, routes } from '../feature.js'
import { DomainEvents } from './domain-events.js'
import { ensureAdmin } from './ensure-admin.js'
import { usersErrorCodes } from './errors.js'
import { PasswordGuesses } from './password-guesses.js'
import { PasswordHasher } from './passwords.js'
import { compactSearchIndex } from './search-index.js'
import { searchIndexFunctions, searchIndexReadTargets } from './search-index.repository.js'
import { userDirectoryFunctions, userDirectoryReadTargets } from './user-directory.repository.js'
import type { UserLifecycle } from './user-lifecycle.js'
import { usersFunctions, usersReadTargets } from './users.repository.js'
import { UserService } from './users.service.js'
import usersRoutesV1 from './users.v1.routes.js'
import usersRoutesV2 from './users.v2.routes.js'

interface UsersServices {
  users: UserService
  /** Password hashing in its worker threads, stopped with the app. */
  passwords: PasswordHasher
  /** What happened to a user, once committed; the slices subscribe in their feature.ts. */
  domainEvents: DomainEvents
  /** Merges SQLite's user search index back into one segment once it is in pieces (search-index.ts). */
  compactSearchIndex(signal?: AbortSignal): Promise<void>
}

export const usersFeature: Feature<UsersServices> = {
  name: 'users',
  errors: usersErrorCodes,
  needs: ['tiers', 'security-events', 'rate-limits', 'avatars', 'change-events', 'abuse', 'content-fields'],
  calls: ['account', 'posts', 'comments', 'api-keys', 'orgs', 'files', 'data-export'],
  create({ config, logger, bind, unitOfWork, peers }) {
    const { passwordScreen, emailDomains } = peers
    const passwords = new PasswordHasher(config.passwordHashing)
    const domainEvents = new DomainEvents((error, type) => logger.error({ err: error, event: type }, 'a reaction to a committed change failed'))
    // What other slices write in the unit of work of a change to a user.
    const lifecycle: UserLifecycle = {
      signedUp: (unit, user) => peers.account.welcome(unit, user),
      softDeleted: async (unit, userId) => {
        await peers.posts.hideAllOf(unit, userId)
        await peers.comments.hideAllOf(unit, userId)
        await peers.apiKeys.revokeAllOfDeleted(unit, userId)
      },
      restored: async (unit, userId, deletedAt) => {
        await peers.posts.restoreHiddenWith(unit, userId, deletedAt)
        await peers.comments.restoreHiddenWith(unit, userId, deletedAt)
      },
      removing: async (unit, userId) => {
        // Their comments' words go; the rows stay as tombstones under which others' replies hang.
        await peers.comments.eraseAllOf(unit, userId)
        // An organization keeps an owner (409 last_owner).
        await peers.orgs.assertNotLastOwner(unit, userId)
        // Their files and data exports go with them, through the store's outbox.
        await peers.attachments.removeAllOwnedBy(unit, userId)
        await peers.dataExports.removeAllOf(unit, userId)
      },
    }
    const users = new UserService({
      users: bind(usersFunctions, usersReadTargets),
      managedUsers: bind(userDirectoryFunctions, userDirectoryReadTargets),
      unitOfWork,
      domainEvents,
      lifecycle,
      changes: peers.changeEvents,
      passwords,
      avatars: peers.avatars,
      tiers: peers.tiers,
      events: peers.securityEvents,
      guesses: new PasswordGuesses(peers.rateLimits),
      screens: {
        password: (password, userId, options) => passwordScreen.assertNotBreached(password, userId, options),
        emailDomain: (email, userId) => emailDomains.assertAllowed(email, null, userId),
      },
      fields: peers.contentFields.of('users'),
    })
    const searchIndex = bind(searchIndexFunctions, searchIndexReadTargets)
    return { users, passwords, domainEvents, compactSearchIndex: async (signal) => void (await compactSearchIndex(searchIndex, signal)) }
  },

  migrations: ['2026-11-21-01-users-and-tiers', '2026-11-21-05-row-counts', '2026-11-21-06-user-search-index', '2026-11-21-07-live-row-indexes', '2026-11-23-01-trigram-indexes-without-pending-list', '2026-12-06-01-user-locale', '2026-12-07-01-service-accounts', '2026-12-13-01-user-fields'],
  // The configured administrator exists before the service serves.
  async prepare({ services, config, logger }) {
    if (config.admin) await ensureAdmin(logger, services.users, config.admin, config.adminPromoteExisting)
  },
  routes: { v1: [routes(usersRoutesV1, { prefix: '/users' })], v2: [routes(usersRoutesV2, { prefix: '/users' })] },
  prune: (services) => services.compactSearchIndex(),
}
