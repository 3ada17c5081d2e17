// What every identity provider does for a sign-in flow (OpenID Connect by discovery, GitHub's
// OAuth 2.0): the URL that sends the browser there, and the identity its answer vouches for.
import * as oidc from 'openid-client'

/** Seconds any one request to a provider may take. */
export const PROVIDER_TIMEOUT_SECONDS = 10

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

export interface IdentityProvider {
  readonly name: string
  readonly label: string
  authorizationUrl(secrets: FlowSecrets): Promise<string>
  /** Validates the provider's answer (the callback's URL) against the flow's secrets. */
  finish(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity>
}

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

export function newFlowSecrets(): FlowSecrets {
  return { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() }
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
