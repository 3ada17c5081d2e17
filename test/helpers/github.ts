// A local server speaking GitHub's documented OAuth app endpoints (authorize, access_token with
// PKCE, GET /user and GET /user/emails), so the GitHub sign-in runs end to end over HTTP. Who
// signs in at "GitHub" is whoever the test names with `as()` before following the redirect.
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GitHubAccount {
  id: number
  login: string
  name: string | null
  emails: { email: string; primary: boolean; verified: boolean }[]
}

export interface TestGitHub {
  url: string
  clientId: string
  clientSecret: string
  /** The account the next authorization signs in as. */
  as(account: GitHubAccount): void
  /** Follows the authorize URL as the current account: the URL GitHub sends the browser back to. */
  signIn(authorizationUrl: string): Promise<URL>
  stop(): Promise<void>
}

export async function startGitHub(): Promise<TestGitHub> {
  const clientId = 'Iv1.testclient'
  const clientSecret = 'a-github-test-client-secret'
  let current: GitHubAccount | undefined
  const codes = new Map<string, { account: GitHubAccount; challenge: string; redirectUri: string }>()
  const tokens = new Map<string, GitHubAccount>()

  const json = (response: http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://github.test')
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? ''
      if (url.searchParams.get('client_id') !== clientId || !current || url.searchParams.get('code_challenge_method') !== 'S256') return json(response, 400, { error: 'bad authorize' })
      const code = randomBytes(16).toString('hex')
      codes.set(code, { account: current, challenge: url.searchParams.get('code_challenge') ?? '', redirectUri })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      return response.writeHead(302, { location: back.href }).end()
    }
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        const form = new URLSearchParams(body)
        const basic = request.headers.authorization?.startsWith('Basic ') ? Buffer.from(request.headers.authorization.slice(6), 'base64').toString() : ''
        const [id, secret] = basic ? basic.split(':').map(decodeURIComponent) : [form.get('client_id'), form.get('client_secret')]
        const grant = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const challenge = createHash('sha256').update(verifier).digest('base64url')
        if (id !== clientId || secret !== clientSecret || !grant || grant.challenge !== challenge || grant.redirectUri !== form.get('redirect_uri')) {
          return json(response, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' })
        }
        const token = `gho_${randomBytes(16).toString('hex')}`
        tokens.set(token, grant.account)
        return json(response, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' })
      })
      return undefined
    }
    const account = tokens.get(request.headers.authorization?.replace(/^(Bearer|token) /, '') ?? '')
    if (!account) return json(response, 401, { message: 'Bad credentials' })
    if (url.pathname === '/api/user') return json(response, 200, { id: account.id, login: account.login, name: account.name })
    if (url.pathname === '/api/user/emails') return json(response, 200, account.emails.map((email) => ({ ...email, visibility: null })))
    return json(response, 404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    clientId,
    clientSecret,
    as(account) {
      current = account
    },
    async signIn(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' })
      const location = response.headers.get('location')
      if (!location) throw new Error(`GitHub did not redirect: ${response.status} ${await response.text()}`)
      return new URL(location)
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
