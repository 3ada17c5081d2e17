// Moderation: bans that end every way in at once, and support impersonation that is read-only or
// full, time-boxed, recorded and shown to the user. The impersonation rules are an app plugin
// (impersonation.http.ts) registered right after the caller is resolved.
import { type Feature, requestHook, routes } from '../feature.js'
import { BAN_EXPIRY_CHECK_MS } from './bans.service.js'
import { BanService } from './bans.service.js'
import { moderationErrorCodes } from './errors.js'
import impersonationRules from './impersonation.http.js'
import { impersonationsFunctions, impersonationsReadTargets } from './impersonations.repository.js'
import { ImpersonationService } from './impersonations.service.js'
import moderationRoutes from './moderation.v2.routes.js'
import { type ModerationSettings, moderationSettings } from './settings.js'

interface ModerationServices {
  bans: BanService
  impersonations: ImpersonationService
}

export const moderationFeature: Feature<ModerationServices, { moderation: ModerationSettings }> = {
  name: 'moderation',
  // A support impersonation's token is held to its route rules before anything else runs.
  requestHooks: [requestHook('impersonation', impersonationRules)],
  settings: (env) => ({ moderation: moderationSettings(env) }),
  errors: moderationErrorCodes,
  needs: ['users', 'auth', 'security-events', 'mail'],
  create({ config, bind, unitOfWork, peers: { users, auth, securityEvents, mail } }) {
    return {
      bans: new BanService({ users, auth, unitOfWork, events: securityEvents }),
      impersonations: new ImpersonationService({
        repository: bind(impersonationsFunctions, impersonationsReadTargets),
        users,
        auth,
        unitOfWork,
        events: securityEvents,
        mail,
        notifyByMail: config.moderation.impersonationNotify === 'mail',
      }),
    }
  },

  migrations: ['2026-12-02-01-moderation'],
  routes: { v2: [routes(moderationRoutes, { prefix: '/admin' })] },
  jobs: ({ services }) => [{ name: 'ban-expiry', intervalMs: BAN_EXPIRY_CHECK_MS, run: () => services.bans.liftExpired() }],
}
