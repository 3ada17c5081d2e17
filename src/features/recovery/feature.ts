// What the ways into an account are, and ending those someone else may have added.
import { type Feature, routes } from '../feature.js'
import { AccountRecovery } from './recovery.service.js'
import recoveryRoutes from './recovery.v2.routes.js'

interface RecoveryServices {
  /** What the ways into an account are, and ending those someone else may have added. */
  recovery: AccountRecovery
}

export const recoveryFeature: Feature<RecoveryServices> = { name: 'recovery',
  needs: ['users', 'auth', 'api-keys', 'passkeys', 'identities', 'mfa', 'mail', 'security-events'],
  create({ unitOfWork, peers: { users, auth, apiKeys, passkeys, identities, secondFactors, mail, securityEvents } }) {
    return { recovery: new AccountRecovery({ users, auth, apiKeys, passkeys, identities, secondFactors, mail, unitOfWork, events: securityEvents }) }
  },
 migrations: ['2026-11-26-01-reauthentication-and-recovery'], routes: { v2: [routes(recoveryRoutes)] } }
