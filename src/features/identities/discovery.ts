// At start, each configured provider is discovered. One whose discovery fails is logged, its
// routes answer 503 `provider_unavailable` meanwhile, and it is tried again with backoff (1 s,
// doubling to 5 minutes) until it answers: a provider that starts after the service appears by
// itself. The provider modules (and openid-client with them) load only when a provider is
// configured.
import type { Logger } from '../../logger.js'
import type { IdentityService } from './identities.service.js'
import type { GitHubConfig, OidcProviderConfig } from './settings.js'

const FIRST_RETRY_MS = 1000
const LONGEST_RETRY_MS = 5 * 60 * 1000

/** What keeps trying the providers that did not answer; stopped with the app. */
export interface ProviderDiscovery {
  stop(): void
}

export async function discoverProviders(
  config: { oidcProviders: readonly OidcProviderConfig[]; github: GitHubConfig | undefined },
  callbackUrl: (provider: string) => string,
  identities: IdentityService,
  logger: Logger,
): Promise<ProviderDiscovery> {
  const timers = new Set<NodeJS.Timeout>()
  let stopped = false
  if (config.oidcProviders.length > 0) {
    const { OidcProvider } = await import('./oidc-provider.js')
    const attempt = (provider: OidcProviderConfig) => OidcProvider.discover(provider, callbackUrl(provider.name))
    const retry = (provider: OidcProviderConfig, delayMs: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        attempt(provider).then(
          (discovered) => {
            if (stopped) return
            identities.add(discovered)
            logger.info({ provider: provider.name, issuer: provider.issuer }, 'OpenID Connect provider discovered: its sign-in is on')
          },
          () => {
            if (!stopped) retry(provider, Math.min(delayMs * 2, LONGEST_RETRY_MS))
          },
        )
      }, delayMs).unref()
      timers.add(timer)
    }
    const discovered = await Promise.all(
      config.oidcProviders.map(async (provider) => {
        try {
          return await attempt(provider)
        } catch (error) {
          logger.error(
            { err: error, provider: provider.name, issuer: provider.issuer },
            'OpenID Connect discovery failed: the provider answers 503 provider_unavailable and is tried again until it answers',
          )
          identities.expect(provider.name)
          retry(provider, FIRST_RETRY_MS)
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
  return {
    stop() {
      stopped = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
