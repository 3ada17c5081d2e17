// The OAuth 2.0 steps every provider shares, through openid-client: the authorization URL, the
// callback's URL as the provider must see it, and any failure as the error the frontend gets.
import * as oidc from 'openid-client'

import type { FlowSecrets } from './identity-provider.js'
import { ProviderFlowError } from './identity-provider.js'

/** The provider's authorization URL for a flow: state, PKCE (S256), and the nonce when `withNonce` (OpenID Connect). */
export async function authorizationUrlOf(configuration: oidc.Configuration, redirectUri: string, scope: string, secrets: FlowSecrets, withNonce: boolean): Promise<string> {
  const parameters = {
    redirect_uri: redirectUri,
    scope,
    state: secrets.state,
    ...(withNonce ? { nonce: secrets.nonce } : {}),
    code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
    code_challenge_method: 'S256',
  }
  return oidc.buildAuthorizationUrl(configuration, parameters).href
}

/** The callback's parameters on the registered redirect URI, whatever host the request came in by. */
export function returnedTo(redirectUri: string, callbackUrl: URL): URL {
  const current = new URL(redirectUri)
  current.search = callbackUrl.search
  return current
}

/** Any failure of a callback, as the error the frontend gets. */
export function asFlowError(error: unknown): ProviderFlowError {
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
