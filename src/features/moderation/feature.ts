// Moderation: bans that end every way in at once, and support impersonation that is read-only or
// full, time-boxed, recorded and shown to the user. The impersonation rules are an app plugin
// (impersonation.http.ts) registered right after the caller is resolved.
import { type Feature, routes } from '../feature.js'
import { BAN_EXPIRY_CHECK_MS } from './bans.service.js'
import moderationRoutes from './moderation.v2.routes.js'

export const moderationFeature: Feature = {
  name: 'moderation',
  migrations: ['2026-12-02-01-moderation'],
  routes: { v2: [routes(moderationRoutes, { prefix: '/admin' })] },
  jobs: ({ services }) => [{ name: 'ban-expiry', intervalMs: BAN_EXPIRY_CHECK_MS, run: () => services.bans.liftExpired() }],
}
