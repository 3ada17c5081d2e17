// The one store for single-use secrets: mailed links, codes, challenges, tickets (ADR 28).
import type { Feature } from '../feature.js'
import { oneTimeSecretsFunctions, oneTimeSecretsReadTargets } from './one-time-secrets.repository.js'
import { OneTimeSecrets } from './one-time-secrets.service.js'

interface OneTimeSecretsServices {
  /** The one store for single-use secrets. */
  oneTimeSecrets: OneTimeSecrets
}

export const oneTimeSecretsFeature: Feature<OneTimeSecretsServices> = { name: 'one-time-secrets',
  create: ({ secretKey, bind }) => ({ oneTimeSecrets: new OneTimeSecrets(bind(oneTimeSecretsFunctions, oneTimeSecretsReadTargets), secretKey) }),
 migrations: ['2026-11-27-01-one-store-for-one-time-secrets'], prune: (services) => services.oneTimeSecrets.prune() }
