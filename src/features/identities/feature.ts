// Sign-in through OpenID Connect providers and GitHub, and the identities linked to users.
import { RedirectAllowList } from '../../shared/redirect-allow-list.js'
import { type Feature, routes } from '../feature.js'
import authProviderRoutes from './auth-providers.v2.routes.js'
import { discoverProviders } from './discovery.js'
import { identitiesErrorCodes } from './errors.js'
import { identitiesFunctions, identitiesReadTargets } from './identities.repository.js'
import { IdentityService } from './identities.service.js'
import { type GitHubConfig, githubSettings, type OidcProviderConfig, oidcProvidersOf } from './settings.js'

interface IdentitiesSettings {
  /** OpenID Connect providers to sign in with, in OIDC_PROVIDERS' order. */
  oidcProviders: OidcProviderConfig[]
  /** GitHub sign-in; undefined: off. */
  github: GitHubConfig | undefined
}

interface IdentitiesServices {
  /** Sign-in through OpenID Connect providers, and the identities linked to users. */
  identities: IdentityService
}

export const identitiesFeature: Feature<IdentitiesServices, IdentitiesSettings> = { name: 'identities',
  // The providers' discovery documents, asked again while the process serves (until one answers, a sign-in with it is 503).
  open: ({ services, config, logger }) => discoverProviders(config, (name) => `${config.mail.publicUrl}/api/v2/auth/${name}/callback`, services.identities, logger),
  settings(env) {
    const oidcProviders = oidcProvidersOf(env)
    return { oidcProviders, github: githubSettings(env, oidcProviders.map((provider) => provider.name)) }
  },
  errors: identitiesErrorCodes,
  needs: ['one-time-secrets', 'users', 'auth', 'security-events', 'rate-limits', 'sign-in-methods'],
  create({ config, bind, unitOfWork, peers }) {
    const identities = new IdentityService({
      repository: bind(identitiesFunctions, identitiesReadTargets),
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
