// Tiers: the plans users belong to, which their rate limits and (version 2) storage quotas follow.
import { type Feature, routes } from '../feature.js'
import tiersRoutes from './tiers.routes.js'

export const tiersFeature: Feature = {
  name: 'tiers',
  migrations: ['2026-11-21-01-users-and-tiers'],
  routes: { v1: [routes(tiersRoutes, { prefix: '/tiers' })], v2: [routes(tiersRoutes, { prefix: '/tiers', quotas: true })] },
}
