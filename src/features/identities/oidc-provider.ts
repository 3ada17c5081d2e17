// One OpenID Connect provider, through openid-client (a certified relying party): discovery,
// the authorization URL with state, nonce and PKCE (S256), and the callback, whose ID token
// openid-client validates (signature by the provider's published keys, with its non-repudiation
// checks on; issuer, audience, expiry, nonce).
import * as oidc from 'openid-client'

import type { FlowSecrets, IdentityProvider, ProviderIdentity } from './identity-provider.js'
import { PROVIDER_TIMEOUT_SECONDS, ProviderFlowError } from './identity-provider.js'
import { asFlowError, authorizationUrlOf, returnedTo } from './oauth-flow.js'
import type { OidcProviderConfig } from './settings.js'

export class OidcProvider implements IdentityProvider {
  readonly name: string
  readonly label: string
  private readonly configuration: oidc.Configuration
  private readonly scopes: string
  private readonly redirectUri: string

  private constructor(provider: { name: string; label: string; configuration: oidc.Configuration; scopes: string; redirectUri: string }) {
    this.name = provider.name
    this.label = provider.label
    this.configuration = provider.configuration
    this.scopes = provider.scopes
    this.redirectUri = provider.redirectUri
  }

  /** Reads the provider's metadata and keys' location; throws when it cannot. */
  static async discover(config: OidcProviderConfig, redirectUri: string): Promise<OidcProvider> {
    const issuer = new URL(config.issuer)
    // http only for a provider on this machine (config allows it on loopback hosts alone).
    // openid-client checks an ID token's signature only with non-repudiation checks on (OIDC lets a
    // client rely on TLS alone); on, a token signed by any key but the provider's published ones fails.
    const execute = [oidc.enableNonRepudiationChecks, ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [])]
    const configuration = await oidc.discovery(issuer, config.clientId, config.clientSecret, undefined, { execute, timeout: PROVIDER_TIMEOUT_SECONDS })
    return new OidcProvider({ name: config.name, label: config.label, configuration, scopes: config.scopes, redirectUri })
  }

  authorizationUrl(secrets: FlowSecrets): Promise<string> {
    return authorizationUrlOf(this.configuration, this.redirectUri, this.scopes, secrets, true)
  }

  /** Exchanges the callback's code and validates the ID token; the claims, with userinfo's when the ID token lacks the email. */
  async finish(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity> {
    try {
      const tokens = await oidc.authorizationCodeGrant(this.configuration, returnedTo(this.redirectUri, callbackUrl), {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: secrets.state,
        expectedNonce: secrets.nonce,
        idTokenExpected: true,
      })
      const claims = tokens.claims()
      if (!claims) throw new ProviderFlowError('invalid_response', 'The provider sent no ID token')
      const profile: Record<string, unknown> = { ...claims }
      if (typeof claims.email !== 'string') Object.assign(profile, await oidc.fetchUserInfo(this.configuration, tokens.access_token, claims.sub), { sub: claims.sub })
      return {
        subject: claims.sub,
        email: typeof profile.email === 'string' ? profile.email : undefined,
        emailVerified: profile.email_verified === true,
        name: typeof profile.name === 'string' ? profile.name : undefined,
        username: typeof profile.preferred_username === 'string' ? profile.preferred_username : undefined,
      }
    } catch (error) {
      throw asFlowError(error)
    }
  }
}
