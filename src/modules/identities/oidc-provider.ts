// One OpenID Connect provider, through openid-client (a certified relying party): discovery,
// the authorization URL with state, nonce and PKCE (S256), and the callback, whose ID token
// openid-client validates (signature by the provider's keys, issuer, audience, expiry, nonce).
import * as oidc from 'openid-client'

import type { OidcProviderConfig } from '../../config.js'

/** Seconds any one request to a provider may take. */
const PROVIDER_TIMEOUT_SECONDS = 10

/** What the provider vouches for about the person who signed in. */
export interface ProviderIdentity {
  subject: string
  email: string | undefined
  emailVerified: boolean
  name: string | undefined
  username: string | undefined
}

/** Secrets of one flow: sent (state, nonce, the verifier's challenge) and checked on return. */
export interface FlowSecrets {
  state: string
  nonce: string
  codeVerifier: string
}

/** Why a callback failed, as the `error` the frontend gets. */
export class ProviderFlowError extends Error {
  constructor(
    readonly error: 'access_denied' | 'provider_error' | 'provider_unavailable' | 'invalid_response',
    message: string,
  ) {
    super(message)
  }
}

export class OidcProvider {
  private constructor(
    readonly name: string,
    readonly label: string,
    private readonly configuration: oidc.Configuration,
    private readonly scopes: string,
    private readonly redirectUri: string,
  ) {}

  /** Reads the provider's metadata and keys' location; throws when it cannot. */
  static async discover(config: OidcProviderConfig, redirectUri: string): Promise<OidcProvider> {
    const issuer = new URL(config.issuer)
    // http only for a provider on this machine (config allows it on loopback hosts alone).
    const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []
    const configuration = await oidc.discovery(issuer, config.clientId, config.clientSecret, undefined, { execute, timeout: PROVIDER_TIMEOUT_SECONDS })
    return new OidcProvider(config.name, config.label, configuration, config.scopes, redirectUri)
  }

  static newFlowSecrets(): FlowSecrets {
    return { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() }
  }

  async authorizationUrl(secrets: FlowSecrets): Promise<string> {
    const parameters = {
      redirect_uri: this.redirectUri,
      scope: this.scopes,
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    }
    return oidc.buildAuthorizationUrl(this.configuration, parameters).href
  }

  /** Exchanges the callback's code and validates the ID token; the claims, with userinfo's when the ID token lacks the email. */
  async finish(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity> {
    // The callback's parameters on the registered redirect URI, whatever host the request came in by.
    const current = new URL(this.redirectUri)
    current.search = callbackUrl.search
    try {
      const tokens = await oidc.authorizationCodeGrant(this.configuration, current, {
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

function asFlowError(error: unknown): ProviderFlowError {
  if (error instanceof ProviderFlowError) return error
  if (error instanceof oidc.AuthorizationResponseError) {
    return error.error === 'access_denied'
      ? new ProviderFlowError('access_denied', 'The sign-in was cancelled at the provider')
      : new ProviderFlowError('provider_error', 'The provider refused the sign-in')
  }
  // fetch() failing (refused, reset, timed out) is a TypeError or an AbortError/TimeoutError.
  if (error instanceof TypeError || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))) {
    return new ProviderFlowError('provider_unavailable', 'The provider could not be reached')
  }
  return new ProviderFlowError('invalid_response', 'The provider answered with something that does not check out')
}
