// Second factors: TOTP authenticators, recovery codes and the step after a first factor.
import { SecretBox } from '../../shared/secret-box.js'
import { enrolmentSessions } from '../auth/index.js'
import { type Feature, routes } from '../feature.js'
import { mfaErrorCodes } from './errors.js'
import { mfaFunctions, mfaReadTargets } from './mfa.repository.js'
import mfaRoutes from './mfa.v2.routes.js'
import { SecondFactorService } from './second-factors.service.js'
import { type MfaSettings, mfaSettings } from './settings.js'

interface MfaServices {
  /** TOTP authenticators and recovery codes; sign-in asks them through AuthService. */
  secondFactors: SecondFactorService
}

export const mfaFeature: Feature<MfaServices, { mfa: MfaSettings }> = { name: 'mfa',
  settings: (env, { mail, nodeEnv }) => ({ mfa: mfaSettings(env, mail.publicUrl, nodeEnv === 'development') }),
  errors: mfaErrorCodes,
  needs: ['one-time-secrets', 'users', 'passkeys', 'security-events'],
  calls: ['auth'],
  create({ config, secretKey, bind, unitOfWork, peers }) {
    const secondFactors = new SecondFactorService({
      repository: bind(mfaFunctions, mfaReadTargets),
      secrets: peers.oneTimeSecrets,
      unitOfWork,
      box: new SecretBox(secretKey, config.secretKeyPrevious),
      users: peers.users,
      passkeys: peers.passkeys,
      events: peers.securityEvents,
      options: { issuer: config.mfa.issuer },
      sessions: enrolmentSessions(() => peers.auth),
    })
    return { secondFactors }
  },
 migrations: ['2026-11-24-04-second-factors'], routes: { v2: [routes(mfaRoutes)] } }
