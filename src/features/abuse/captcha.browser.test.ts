// A sign-up through the service's own page in Debian's Chromium, with Cloudflare's documented
// Turnstile test keys: the page loads the widget's script (here a local stand-in that does what
// Turnstile's does with a test site key: it puts the documented dummy token into the form), and
// the service checks the token with the local verifier, which answers as Cloudflare's siteverify
// does for the test secret. No request leaves the machine; the page's CSP allows the widget's
// origin and nothing else.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { openPage } from '../../../test/helpers/browser.js'
import type { LocalVerifier } from '../../../test/helpers/captcha-verifier.js'
import { startCaptchaVerifier, TURNSTILE_DUMMY_TOKEN, TURNSTILE_TEST_SECRET, TURNSTILE_TEST_SITE_KEY } from '../../../test/helpers/captcha-verifier.js'
import { freePort } from '../../../test/helpers/process.js'

const chromiumPath = inject('chromiumPath')

/** What Turnstile's script does for a test site key, without the network: a widget that passes at once. */
const WIDGET_SCRIPT = `
for (const element of document.querySelectorAll('.cf-turnstile')) {
  const token = document.createElement('input')
  token.type = 'hidden'
  token.name = 'cf-turnstile-response'
  token.value = ${JSON.stringify(TURNSTILE_DUMMY_TOKEN)}
  element.closest('form').appendChild(token)
  element.textContent = 'Success! (' + element.dataset.sitekey + ')'
}`

describe.skipIf(!chromiumPath)("a sign-up through the service's own page with the Turnstile test keys", () => {
  let t: TestApp
  let verifier: LocalVerifier
  let widgetServer: http.Server
  let browser: Browser
  let page: Page
  let problems: string[]
  let base = ''

  beforeAll(async () => {
    verifier = await startCaptchaVerifier()
    widgetServer = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/javascript' }).end(WIDGET_SCRIPT))
    await new Promise<void>((resolve) => widgetServer.listen(0, '127.0.0.1', resolve))
    const scriptUrl = `http://127.0.0.1:${(widgetServer.address() as AddressInfo).port}/turnstile/v0/api.js`
    const port = await freePort()
    base = `http://localhost:${port}`
    t = await createTestApp({
      PUBLIC_URL: base,
      CAPTCHA_PROVIDER: 'turnstile',
      CAPTCHA_SITE_KEY: TURNSTILE_TEST_SITE_KEY,
      CAPTCHA_SECRET: TURNSTILE_TEST_SECRET,
      CAPTCHA_VERIFY_URL: verifier.url,
      CAPTCHA_SCRIPT_URL: scriptUrl,
      CAPTCHA_MODE: 'always',
    })
    await t.app.listen({ host: '127.0.0.1', port })
    ;({ browser, page, problems } = await openPage(chromiumPath, `${base}/account/signup`))
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await verifier?.close()
    widgetServer?.close()
  })

  it('renders the widget, sends its token with the form, and creates the account', async () => {
    await page.getByText(`Success! (${TURNSTILE_TEST_SITE_KEY})`).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Grace Hopper')
    await page.getByLabel('Username').fill('grace_in_chromium')
    await page.getByLabel('Email', { exact: true }).fill('grace.chromium@example.com')
    await page.getByLabel('Password', { exact: true }).fill('a compiler of her own')
    await page.getByLabel('I accept the terms of service').check()
    await page.getByRole('button', { name: 'Create my account' }).click()
    await page.getByText('Your account is created.').waitFor()
    expect(verifier.received.at(-1)).toMatchObject({ secret: TURNSTILE_TEST_SECRET, response: TURNSTILE_DUMMY_TOKEN })
    expect(await t.db.selectFrom('users').select('username').where('username', '=', 'grace_in_chromium').executeTakeFirst()).toBeDefined()
    expect(problems).toEqual([])
  })
})
