// A real OpenID Provider in the test process (oidc-provider, the certified Node implementation)
// on a loopback port, with accounts the test sets, and a driver that signs a person in through
// its own login form over HTTP, as a browser would, up to the redirect back to the service.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import type { CryptoKey, JWTPayload } from 'jose'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose'
import Provider from 'oidc-provider'

export interface TestAccount {
  email?: string
  email_verified?: boolean
  name?: string
  preferred_username?: string
}

export interface TestOidcProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Accounts by subject (`sub`); add or change them at any time. */
  accounts: Map<string, TestAccount>
  /**
   * From now on the token endpoint answers with an ID token whose claims `rewrite` changed, signed
   * with the provider's own key (so only the claims are wrong), or with `foreignKey` by a key the
   * provider never published under the same key id; undefined stops it.
   */
  forgeIdTokens(rewrite: ((claims: JWTPayload) => JWTPayload) | undefined, options?: { foreignKey: boolean }): void
  /** Follows `authorizationUrl` through the provider's login as `subject`; the URL it sends the browser back to. */
  signIn(authorizationUrl: string, subject: string): Promise<URL>
  stop(): Promise<void>
}

/** Starts the provider on `options.port` (a port chosen by the system when 0 or unset). */
export async function startOidcProvider(redirectUris: string[], options: { port?: number } = {}): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestAccount>()
  const clientId = 'user-post-service'
  const clientSecret = 'a-test-client-secret-of-enough-length'
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // A signing key the test knows, so it can sign ID tokens the provider's keys verify.
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-signing-key', alg: 'RS256', use: 'sig' }
  // An unrelated key, never published: what an attacker signs with.
  const { privateKey: foreignKey } = await generateKeyPair('RS256')
  let rewrite: ((claims: JWTPayload) => JWTPayload) | undefined
  let signer = privateKey
  const provider = new Provider(issuer, {
    jwks: { keys: [signingKey] },
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    // Lax everywhere: a SameSite=None cookie without Secure is dropped by Chromium over plain http.
    cookies: { keys: ['a-test-cookie-signing-key'], long: { sameSite: 'lax' }, short: { sameSite: 'lax' } },
    features: { devInteractions: { enabled: true } },
    async findAccount(_context, id) {
      const account = accounts.get(id)
      return account && { accountId: id, claims: () => ({ sub: id, ...account }) }
    },
    // First-party client: consent is given once, here, instead of on a second form.
    async loadExistingGrant(context) {
      const { client, session } = context.oidc
      if (!client || !session?.accountId) return undefined
      const existing = session.grantIdFor(client.clientId)
      if (existing) return context.oidc.provider.Grant.find(existing)
      const grant = new context.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
  })
  const handle = provider.callback()
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const forge = rewrite
    if (forge && request.method === 'POST' && request.url?.startsWith('/token')) replaceIdToken(response, forge, signer)
    void handle(request, response)
  })

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    forgeIdTokens(next, options) {
      rewrite = next
      signer = options?.foreignKey ? foreignKey : privateKey
    },
    async signIn(authorizationUrl, subject) {
      const jar = new Map<string, string>()
      let url = authorizationUrl
      let form: URLSearchParams | undefined
      for (let step = 0; step < 20; step++) {
        const response = await fetch(url, {
          method: form ? 'POST' : 'GET',
          redirect: 'manual',
          headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          ...(form ? { body: form.toString() } : {}),
        })
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';')
          const at = pair.indexOf('=')
          const value = pair.slice(at + 1)
          if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(pair.slice(0, at))
          else jar.set(pair.slice(0, at), value)
        }
        const location = response.headers.get('location')
        if (location) {
          const next = new URL(location, url)
          if (next.origin !== issuer) return next
          url = next.href
          form = undefined
          continue
        }
        const page = await response.text()
        const action = /action="([^"]+)"/.exec(page)?.[1]
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1]
        if (!action || !prompt) throw new Error(`the provider showed an unexpected page (${response.status}): ${page.slice(0, 400)}`)
        url = new URL(action.replaceAll('&amp;', '&'), url).href
        form = new URLSearchParams(prompt === 'login' ? { prompt, login: subject, password: 'any' } : { prompt })
      }
      throw new Error('the sign-in at the provider did not finish in 20 steps')
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Rewrites the token endpoint's answer as it is sent: the ID token's claims changed, signed again with the same key. */
function replaceIdToken(response: http.ServerResponse, rewrite: (claims: JWTPayload) => JWTPayload, key: CryptoKey): void {
  const end = response.end.bind(response) as (body?: string | Buffer) => http.ServerResponse
  response.end = ((body?: string | Buffer) => {
    const answer = JSON.parse(String(body)) as { id_token?: string }
    if (!answer.id_token) return end(body)
    new SignJWT(rewrite(decodeJwt(answer.id_token)))
      .setProtectedHeader({ alg: 'RS256', kid: 'test-signing-key', typ: 'JWT' })
      .sign(key)
      .then((forged) => {
        const text = JSON.stringify({ ...answer, id_token: forged })
        response.setHeader('content-length', Buffer.byteLength(text))
        end(text)
      }, (error: unknown) => response.destroy(error as Error))
    return response
  }) as typeof response.end
}
