// Recent proof of identity for sensitive actions.
import { type Feature, routes } from '../feature.js'
import { reauthenticationErrorCodes } from './errors.js'
import { ReauthenticationService } from './reauthentication.service.js'
import reauthenticationRoutes from './reauthentication.v2.routes.js'

interface ReauthenticationServices {
  /** Recent proof of identity for sensitive actions (POST /reauthenticate, and the check routes declare). */
  reauthentication: ReauthenticationService
}

export const reauthenticationFeature: Feature<ReauthenticationServices> = { name: 'reauthentication',
  errors: reauthenticationErrorCodes,
  needs: ['auth', 'users', 'mfa', 'passkeys', 'one-time-secrets', 'rate-limits', 'mail', 'security-events'],
  create({ unitOfWork, peers }) {
    const { auth, users, secondFactors, passkeys, oneTimeSecrets, loginThrottle, rateLimits, mail, securityEvents } = peers
    const reauthentication = new ReauthenticationService({ auth, users, secondFactors, passkeys, secrets: oneTimeSecrets, throttle: loginThrottle, limits: rateLimits, mail, unitOfWork, events: securityEvents })
    return { reauthentication }
  },
 migrations: ['2026-11-26-01-reauthentication-and-recovery'], routes: { v2: [routes(reauthenticationRoutes)] } }
