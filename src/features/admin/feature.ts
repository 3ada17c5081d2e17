// The superusers' endpoints for running the service: the overview and the user directory.
import { pingDatabase } from '../../db/health.js'
import { type Feature, routes } from '../feature.js'
import adminRoutes from './admin.v2.routes.js'
import { overviewFunctions, overviewReadTargets } from './overview.repository.js'
import { OverviewService } from './overview.service.js'

interface AdminServices {
  /** The admin console's overview (superusers). */
  overview: OverviewService
}

export const adminFeature: Feature<AdminServices> = { name: 'admin',
  create: ({ database: { db }, redis, bind }) => ({
    overview: new OverviewService(bind(overviewFunctions, overviewReadTargets), { database: () => pingDatabase(db), ...(redis ? { redis: () => redis.ping() } : {}) }),
  }),
 migrations: ['2026-11-22-04-admin-overview'], routes: { v2: [routes(adminRoutes, { prefix: '/admin' })] } }
