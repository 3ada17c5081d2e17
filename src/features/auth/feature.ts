// Passwords, sessions and tokens: login, refresh, logout, sessions, and the public signing keys.
import { type Feature, routes } from '../feature.js'
import authRoutes from './auth.routes.js'
import jwksRoutes from './jwks.routes.js'

export const authFeature: Feature = {
  name: 'auth',
  migrations: ['2026-11-21-02-auth-state', '2026-11-22-01-sessions-and-avatar-keys', '2026-11-26-02-signing-keys'],
  routes: { v1: [routes(authRoutes)], v2: [routes(authRoutes)] },
  appRoutes: [routes(jwksRoutes)],
  async prune(services) {
    await services.auth.pruneExpiredState()
    await services.signingKeys?.prune()
  },
}
