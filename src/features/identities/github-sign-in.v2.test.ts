// Sign-in with GitHub (OAuth 2.0, not OpenID Connect) against a local server speaking GitHub's
// documented endpoints: PKCE and state on the code exchange, the person from GET /user, and only
// a primary email GitHub marks verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { GitHubAccount, TestGitHub } from '../../../test/helpers/github.js'
import { startGitHub } from '../../../test/helpers/github.js'
import { V2 } from '../../../test/helpers/users.js'

const FRONTEND = 'http://localhost:5173'

let github: TestGitHub
let t: TestApp
let accounts = 0
beforeAll(async () => {
  github = await startGitHub()
  t = await createTestApp({
    PUBLIC_URL: 'http://localhost:8000',
    AUTH_REDIRECT_ORIGINS: FRONTEND,
    GITHUB_CLIENT_ID: github.clientId,
    GITHUB_CLIENT_SECRET: github.clientSecret,
    GITHUB_URL: github.url,
    GITHUB_API_URL: `${github.url}/api`,
  })
})
afterAll(async () => {
  await t.close()
  await github.stop()
})

function account(verified = true): GitHubAccount {
  const id = 9_000_000 + ++accounts + (Date.now() % 100_000) * 100
  return { id, login: `Octo-Cat${accounts}`, name: 'Mona Octocat', emails: [{ email: `octo${id}@users.example`, primary: true, verified }, { email: `other${id}@example.com`, primary: false, verified: true }] }
}

/** The whole sign-in as `who`; where the browser lands on the frontend. */
async function signIn(who: GitHubAccount, tamper?: (url: URL) => void): Promise<URL> {
  github.as(who)
  const started = await t.app.inject({ url: `${V2}/auth/github/authorize?redirect_to=${encodeURIComponent(`${FRONTEND}/signed-in`)}` })
  expect(started.statusCode, started.body).toBe(302)
  const providerUrl = new URL(started.headers.location as string)
  expect(providerUrl.searchParams.get('code_challenge_method')).toBe('S256')
  const returned = await github.signIn(providerUrl.href)
  tamper?.(returned)
  const binding = started.cookies.find((cookie) => cookie.name === 'sign_in_flow')!.value
  const answer = await t.app.inject({ url: returned.pathname + returned.search, cookies: { sign_in_flow: binding } })
  expect(answer.statusCode, answer.body).toBe(302)
  const landed = new URL(answer.headers.location as string)
  const handoff = answer.cookies.find((cookie) => cookie.name === 'sign_in_handoff')
  if (handoff) handoffCookies.set(landed.searchParams.get('code') ?? '', handoff.value)
  return landed
}

/** The hand-off cookie the callback set on "the browser", by the code it binds. */
const handoffCookies = new Map<string, string>()

describe('sign-in with GitHub', () => {
  it('is offered as a provider', async () => {
    expect((await t.app.inject({ url: `${V2}/auth/providers` })).json()).toContainEqual({ name: 'github', label: 'GitHub' })
  })

  it('creates a verified user from the primary verified email at the first sign-in and finds it at the second', async () => {
    const who = account()
    const ids: number[] = []
    for (let i = 0; i < 2; i++) {
      const code = (await signIn(who)).searchParams.get('code')!
      const tokens = (await t.app.inject({ method: 'POST', url: `${V2}/auth/token`, payload: { code }, cookies: { sign_in_handoff: handoffCookies.get(code)! } })).json()
      const me = (await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${tokens.access_token}` } })).json()
      expect(me).toMatchObject({ username: `octo_cat${accounts}`, name: 'Mona Octocat', email: who.emails[0]!.email, is_verified: true })
      ids.push(me.id)
    }
    expect(ids[1]).toBe(ids[0])
    const methods = await t.db.selectFrom('security_events').select('method').where('user_id', '=', ids[0]!).where('type', '=', 'login_succeeded').execute()
    expect(methods.map((row) => row.method)).toEqual(['github', 'github'])
  })

  it('refuses a GitHub account whose primary email is unverified, and creates nothing', async () => {
    const who = account(false)
    const landed = await signIn(who)
    expect(landed.searchParams.get('error')).toBe('email_required')
    expect(await t.db.selectFrom('users').select('id').where('email', 'in', who.emails.map((email) => email.email)).execute()).toHaveLength(0)
  })

  it('refuses a code GitHub does not accept', async () => {
    const landed = await signIn(account(), (url) => url.searchParams.set('code', 'not-a-code'))
    expect(landed.searchParams.get('error')).toBe('invalid_response')
  })
})
