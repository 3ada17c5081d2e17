// At start, each configured provider is discovered; one whose discovery fails is logged and left
// out, and the service starts without it.
import type { GitHubConfig, OidcProviderConfig } from '../../config.js'
import type { Logger } from '../../logger.js'
import { GitHubProvider } from './github-provider.js'
import type { IdentityService } from './identities.service.js'
import { OidcProvider } from './oidc-provider.js'

export async function discoverProviders(
  config: { oidcProviders: readonly OidcProviderConfig[]; github: GitHubConfig | undefined },
  callbackUrl: (provider: string) => string,
  identities: IdentityService,
  logger: Logger,
): Promise<void> {
  const discovered = await Promise.all(
    config.oidcProviders.map(async (config) => {
      try {
        return await OidcProvider.discover(config, callbackUrl(config.name))
      } catch (error) {
        logger.error({ err: error, provider: config.name, issuer: config.issuer }, 'OpenID Connect discovery failed: the provider is left out')
        return undefined
      }
    }),
  )
  // In OIDC_PROVIDERS' order, whichever answered first.
  for (const provider of discovered) if (provider) identities.add(provider)
  // GitHub has no discovery: its endpoints are known.
  if (config.github) identities.add(GitHubProvider.create(config.github, callbackUrl('github')))
}
