// Users: reading, updating, deleting and restoring them, their directory and search index.
import { type Feature, routes } from '../feature.js'
import usersRoutesV1 from './users.v1.routes.js'
import usersRoutesV2 from './users.v2.routes.js'

export const usersFeature: Feature = {
  name: 'users',
  migrations: ['2026-11-21-01-users-and-tiers', '2026-11-21-05-row-counts', '2026-11-21-06-user-search-index', '2026-11-21-07-live-row-indexes', '2026-11-23-01-trigram-indexes-without-pending-list', '2026-12-06-01-user-locale', '2026-12-07-01-service-accounts'],
  routes: { v1: [routes(usersRoutesV1, { prefix: '/users' })], v2: [routes(usersRoutesV2, { prefix: '/users' })] },
  prune: (services) => services.compactSearchIndex(),
}
