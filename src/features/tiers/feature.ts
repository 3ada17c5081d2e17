// Tiers: the plans users belong to, which their rate limits and (version 2) storage quotas follow.
import { type Feature, routes } from '../feature.js'
import { tiersErrorCodes } from './errors.js'
import { tiersFunctions, tiersReadTargets } from './tiers.repository.js'
import tiersRoutes from './tiers.routes.js'
import { TierService } from './tiers.service.js'

interface TiersServices {
  tiers: TierService
}

export const tiersFeature: Feature<TiersServices> = {
  name: 'tiers',
  errors: tiersErrorCodes,
  create: ({ bind }) => ({ tiers: new TierService(bind(tiersFunctions, tiersReadTargets)) }),

  migrations: ['2026-11-21-01-users-and-tiers'],
  routes: { v1: [routes(tiersRoutes, { prefix: '/tiers' })], v2: [routes(tiersRoutes, { prefix: '/tiers', quotas: true })] },
}
