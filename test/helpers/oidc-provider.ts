// A real OpenID Provider in the test process (oidc-provider, the certified Node implementation)
// on a loopback port, with accounts the test sets, and a driver that signs a person in through
// its own login form over HTTP, as a browser would, up to the redirect back to the service.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

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
  /** Follows `authorizationUrl` through the provider's login as `subject`; the URL it sends the browser back to. */
  signIn(authorizationUrl: string, subject: string): Promise<URL>
  stop(): Promise<void>
}

export async function startOidcProvider(redirectUris: string[]): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestAccount>()
  const clientId = 'user-post-service'
  const clientSecret = 'a-test-client-secret-of-enough-length'
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
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
  server.on('request', provider.callback())

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
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
