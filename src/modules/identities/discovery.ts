// At start, each configured provider is discovered; one whose discovery fails is logged and left
// out, and the service starts without it. The provider modules (and openid-client with them) load
// only when a provider is configured.
import type { GitHubConfig, OidcProviderConfig } from '../../config.js'
import type { Logger } from '../../logger.js'
import type { IdentityService } from './identities.service.js'

export async function discoverProviders(
  config: { oidcProviders: readonly OidcProviderConfig[]; github: GitHubConfig | undefined },
  callbackUrl: (provider: string) => string,
  identities: IdentityService,
  logger: Logger,
): Promise<void> {
  if (config.oidcProviders.length > 0) {
    const { OidcProvider } = await import('./oidc-provider.js')
    const discovered = await Promise.all(
      config.oidcProviders.map(async (provider) => {
        try {
          return await OidcProvider.discover(provider, callbackUrl(provider.name))
        } catch (error) {
          logger.error({ err: error, provider: provider.name, issuer: provider.issuer }, 'OpenID Connect discovery failed: the provider is left out')
          return undefined
        }
      }),
    )
    // In OIDC_PROVIDERS' order, whichever answered first.
    for (const provider of discovered) if (provider) identities.add(provider)
  }
  if (config.github) {
    // GitHub has no discovery: its endpoints are known.
    const { GitHubProvider } = await import('./github-provider.js')
    identities.add(GitHubProvider.create(config.github, callbackUrl('github')))
  }
}
