// The one store for single-use secrets: mailed links, codes, challenges, tickets (ADR 28).
import type { Feature } from '../feature.js'

export const oneTimeSecretsFeature: Feature = { name: 'one-time-secrets', migrations: ['2026-11-27-01-one-store-for-one-time-secrets'], prune: (services) => services.oneTimeSecrets.prune() }
