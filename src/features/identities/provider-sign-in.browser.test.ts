// Sign-in through an OpenID Connect provider in Debian's Chromium: a page on another origin sends
// the browser to the service, which sends it to the provider (oidc-provider in the test
// process); the person signs in on the provider's own login page, and the browser lands back on
// the page signed in, the typed client having traded the one-time code.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { launchChromium, watchProblems } from '../../../test/helpers/browser.js'
import { buildClient, serveFrontend } from '../../../test/helpers/frontend.js'
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.js'
import { startOidcProvider } from '../../../test/helpers/oidc-provider.js'
import { freePort } from '../../../test/helpers/process.js'
import { EVENT_DEADLINE_MS } from '../../../test/helpers/wait.js'

const chromiumPath = inject('chromiumPath')

/** The page: a "Sign in with Corp" button, and, back from the provider with ?code=, the code traded for a session. */
const pageHtml = (apiBase: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A frontend</title>
<script type="importmap">{ "imports": { "openapi-fetch": "/vendor/openapi-fetch.mjs" } }</script>
<script type="module">
  import { createClient, unwrap } from '/client/index.js'
  const { api, auth } = createClient({ baseUrl: ${JSON.stringify(apiBase)} })
  document.querySelector('#corp').addEventListener('click', async () => { location.href = await auth.providerSignInUrl('corp', location.origin + '/') })
  const code = new URLSearchParams(location.search).get('code')
  if (code) {
    await auth.finishProviderSignIn(code)
    document.body.dataset.user = (await unwrap(api.GET('/api/v2/users/me'))).email
  }
  document.body.dataset.ready = 'yes'
</script></head><body><button id="corp">Sign in with Corp</button></body></html>`

describe.skipIf(!chromiumPath)('sign-in through a provider, in Chromium', () => {
  let op: TestOidcProvider
  let t: TestApp
  let clientDir: string
  let frontend: Awaited<ReturnType<typeof serveFrontend>>
  let browser: Browser

  beforeAll(async () => {
    clientDir = await mkdtemp(path.join(tmpdir(), 'ups-provider-'))
    await buildClient(clientDir)
    // The service's address is known before it starts: the provider registers its callback.
    const port = await freePort()
    const apiBase = `http://localhost:${port}`
    op = await startOidcProvider([`${apiBase}/api/v2/auth/corp/callback`])
    frontend = await serveFrontend(clientDir, () => pageHtml(apiBase))
    t = await createTestApp({
      PUBLIC_URL: apiBase,
      CORS_ORIGINS: frontend.origin,
      AUTH_REDIRECT_ORIGINS: frontend.origin,
      OIDC_PROVIDERS: 'corp',
      OIDC_CORP_ISSUER: op.issuer,
      OIDC_CORP_CLIENT_ID: op.clientId,
      OIDC_CORP_CLIENT_SECRET: op.clientSecret,
    })
    await t.app.listen({ host: '127.0.0.1', port })
    browser = await launchChromium(chromiumPath)
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await op?.stop()
    await frontend?.close()
    await rm(clientDir, { recursive: true, force: true })
  })

  it("signs in on the provider's own login page and lands on the frontend signed in", async () => {
    const subject = `browser-${Date.now()}`
    op.accounts.set(subject, { email: `${subject}@corp.example`, email_verified: true, name: 'Ada in Chromium' })
    const page = await (await browser.newContext()).newPage()
    const problems = watchProblems(page)
    await page.goto(`${frontend.origin}/`)
    await page.waitForSelector('body[data-ready="yes"]')
    await page.click('#corp')
    // The provider's login form, on the provider's origin.
    await page.waitForSelector('input[name="login"]')
    expect(new URL(page.url()).origin).toBe(op.issuer)
    await page.fill('input[name="login"]', subject)
    await page.fill('input[name="password"]', 'anything')
    await page.click('button[type="submit"]')
    await page.waitForSelector('body[data-user]', { timeout: EVENT_DEADLINE_MS })
    expect(new URL(page.url()).origin).toBe(frontend.origin)
    expect(await page.getAttribute('body', 'data-user')).toBe(`${subject}@corp.example`)
    // Resource loads aside (favicons, and the provider's development login page asks for web fonts the closed network cannot reach), no error.
    expect(problems.filter((problem) => !problem.startsWith('Failed to load resource'))).toEqual([])
  })
})
