// Tiers: the plans users belong to, which their rate limits follow.
import { type Feature, routes } from '../feature.js'
import tiersRoutes from './tiers.routes.js'

const tiers = routes(tiersRoutes, { prefix: '/tiers' })
export const tiersFeature: Feature = { name: 'tiers', migrations: ['2026-11-21-01-users-and-tiers'], routes: { v1: [tiers], v2: [tiers] } }
