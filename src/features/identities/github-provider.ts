// GitHub, which speaks OAuth 2.0 and not OpenID Connect: openid-client runs the authorization
// code flow with PKCE and checks the state; the person comes from GET /user, and the email only
// from GET /user/emails, and only the primary address when GitHub marks it verified.
import * as oidc from 'openid-client'

import type { FlowSecrets, IdentityProvider, ProviderIdentity } from './identity-provider.js'
import { PROVIDER_TIMEOUT_SECONDS, ProviderFlowError } from './identity-provider.js'
import { asFlowError, authorizationUrlOf, returnedTo } from './oauth-flow.js'
import type { GitHubConfig } from './settings.js'

const SCOPES = 'read:user user:email'

interface GitHubUser {
  id: number
  login: string
  name: string | null
}

interface GitHubEmail {
  email: string
  primary: boolean
  verified: boolean
}

export class GitHubProvider implements IdentityProvider {
  readonly name = 'github'
  readonly label = 'GitHub'

  private constructor(
    private readonly configuration: oidc.Configuration,
    private readonly apiUrl: string,
    private readonly redirectUri: string,
  ) {}

  static create(config: GitHubConfig, redirectUri: string): GitHubProvider {
    const server = { issuer: config.url, authorization_endpoint: `${config.url}/login/oauth/authorize`, token_endpoint: `${config.url}/login/oauth/access_token` }
    const configuration = new oidc.Configuration(server, config.clientId, config.clientSecret)
    configuration.timeout = PROVIDER_TIMEOUT_SECONDS
    // http only for a server on this machine (the config allows it on loopback hosts alone).
    if (server.issuer.startsWith('http:')) oidc.allowInsecureRequests(configuration)
    return new GitHubProvider(configuration, config.apiUrl, redirectUri)
  }

  authorizationUrl(secrets: FlowSecrets): Promise<string> {
    return authorizationUrlOf(this.configuration, this.redirectUri, SCOPES, secrets, false)
  }

  async finish(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity> {
    try {
      const tokens = await oidc.authorizationCodeGrant(this.configuration, returnedTo(this.redirectUri, callbackUrl), { pkceCodeVerifier: secrets.codeVerifier, expectedState: secrets.state })
      const user = await this.get<GitHubUser>('/user', tokens.access_token)
      const emails = await this.get<GitHubEmail[]>('/user/emails', tokens.access_token)
      const primary = Array.isArray(emails) ? emails.find((email) => email.primary) : undefined
      if (typeof user.id !== 'number') throw new ProviderFlowError('invalid_response', 'GitHub sent no user id')
      return {
        subject: String(user.id),
        // An unverified primary address proves nothing: no email, so no link and no new account by it.
        email: primary?.verified === true ? primary.email : undefined,
        emailVerified: primary?.verified === true,
        name: user.name ?? undefined,
        username: user.login,
      }
    } catch (error) {
      throw asFlowError(error)
    }
  }

  private async get<T>(path: string, accessToken: string): Promise<T> {
    const response = await fetch(`${this.apiUrl}${path}`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'user-post-service' },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000),
    })
    if (!response.ok) throw new ProviderFlowError('invalid_response', `GitHub answered ${response.status}`)
    return (await response.json()) as T
  }
}
