// What every identity provider does for a sign-in flow (OpenID Connect by discovery, GitHub's
// OAuth 2.0): the URL that sends the browser there, and the identity its answer vouches for.
// openid-client is not loaded here: only a configured provider loads it (discovery.ts).
import { randomBytes } from 'node:crypto'

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

/** 256 random bits each, base64url: a PKCE verifier of 43 characters (RFC 7636 asks 43-128). */
export function newFlowSecrets(): FlowSecrets {
  const random = () => randomBytes(32).toString('base64url')
  return { state: random(), nonce: random(), codeVerifier: random() }
}
