// Passkeys (WebAuthn): registration, sign-in, and the second factor.
import { enrolmentSessions } from '../auth/index.js'
import { type Feature, routes } from '../feature.js'
import { passkeysErrorCodes } from './errors.js'
import { passkeySignIn } from './passkey-sign-in.js'
import { passkeysFunctions, passkeysReadTargets } from './passkeys.repository.js'
import { PasskeyService } from './passkeys.service.js'
import passkeysRoutes from './passkeys.v2.routes.js'
import { type PasskeySettings, passkeySettings } from './settings.js'

interface PasskeysServices {
  /** Users' passkeys (WebAuthn): registration, sign-in, and the second factor through secondFactors. */
  passkeys: PasskeyService
}

export const passkeysFeature: Feature<PasskeysServices, { webauthn: PasskeySettings }> = { name: 'passkeys',
  settings: (env, { mail, nodeEnv }) => ({ webauthn: passkeySettings(env, mail.publicUrl, nodeEnv === 'development') }),
  errors: passkeysErrorCodes,
  needs: ['one-time-secrets', 'users', 'security-events', 'sign-in-methods'],
  calls: ['auth'],
  signInMethods: ({ passkeys, loginThrottle }) => [passkeySignIn(passkeys, loginThrottle)],
  create({ config: { webauthn }, bind, unitOfWork, settingWarnings, peers }) {
    const passkeys = new PasskeyService({
      repository: bind(passkeysFunctions, passkeysReadTargets),
      secrets: peers.oneTimeSecrets,
      users: peers.users,
      events: peers.securityEvents,
      unitOfWork,
      signInMethods: peers.signInMethods,
      rp: { id: webauthn.rpId, name: webauthn.rpName, origins: webauthn.origins },
      sessions: enrolmentSessions(() => peers.auth),
      misconfigured: (refusal) => settingWarnings.warn(refusal.refused, { reason: refusal.refused }, 'a passkey answer was refused by the passkey settings (WEBAUTHN_RP_ID, WEBAUTHN_ORIGINS)'),
    })
    return { passkeys }
  },
 migrations: ['2026-11-24-05-passkeys'], routes: { v2: [routes(passkeysRoutes)] } }
