// The superusers' endpoints for running the service: the overview and the user directory.
import { type Feature, routes } from '../feature.js'
import adminRoutes from './admin.v2.routes.js'

export const adminFeature: Feature = { name: 'admin', migrations: ['2026-11-22-04-admin-overview'], routes: { v2: [routes(adminRoutes, { prefix: '/admin' })] } }
