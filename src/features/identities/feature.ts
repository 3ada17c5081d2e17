// Sign-in through OpenID Connect providers and GitHub, and the identities linked to users.
import { RedirectAllowList } from '../../shared/redirect-allow-list.js'
import { type Feature, routes } from '../feature.js'
import authProviderRoutes from './auth-providers.v2.routes.js'
import { identitiesFunctions } from './identities.repository.js'
import { IdentityService } from './identities.service.js'

interface IdentitiesServices {
  /** Sign-in through OpenID Connect providers, and the identities linked to users. */
  identities: IdentityService
}

export const identitiesFeature: Feature<IdentitiesServices> = { name: 'identities',
  needs: ['one-time-secrets', 'users', 'auth', 'security-events', 'rate-limits', 'sign-in-methods'],
  create({ config, bind, unitOfWork, peers }) {
    const identities = new IdentityService({
      repository: bind(identitiesFunctions),
      secrets: peers.oneTimeSecrets,
      users: peers.users,
      auth: peers.auth,
      events: peers.securityEvents,
      limits: peers.rateLimits,
      unitOfWork,
      signInMethods: peers.signInMethods,
      redirects: new RedirectAllowList(config.authRedirectOrigins),
      signupPolicy: config.userSignup,
    })
    return { identities }
  },
 migrations: ['2026-11-24-02-identities', '2026-11-24-03-identity-links'], routes: { v2: [routes(authProviderRoutes)] } }
