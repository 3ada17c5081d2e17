// Sign-in through OpenID Connect providers and GitHub, and the identities linked to users.
import { type Feature, routes } from '../feature.js'
import authProviderRoutes from './auth-providers.v2.routes.js'

export const identitiesFeature: Feature = { name: 'identities', migrations: ['2026-11-24-02-identities', '2026-11-24-03-identity-links'], routes: { v2: [routes(authProviderRoutes)] } }
