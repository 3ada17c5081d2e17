// Each version's Swagger UI in real headless Chromium: it loads, lists only its own routes,
// "Try it out" of a GET returns 200, and Authorize (OAuth2 password flow against the version's
// own login) makes protected endpoints work from the page.
import type { FastifyInstance } from 'fastify'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { launchChromium, watchProblems } from '../helpers/browser.js'
import { seedUser } from '../helpers/users.js'
import { EVENT_DEADLINE_MS } from '../helpers/wait.js'

const chromiumPath = inject('chromiumPath')

describe.skipIf(!chromiumPath)('Swagger UI in Chromium', () => {
  let t: TestApp
  let app: FastifyInstance
  let browser: Browser
  let base: string
  let user: Awaited<ReturnType<typeof seedUser>>

  beforeAll(async () => {
    t = await createTestApp()
    app = t.app
    base = await app.listen({ host: '127.0.0.1', port: 0 })
    user = await seedUser(app)
    browser = await launchChromium(chromiumPath)
  })
  afterAll(async () => {
    await browser?.close()
    await t.close()
  })

  async function openDocs(prefix: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage()
    const problems = watchProblems(page)
    await page.goto(`${base}${prefix}/docs`)
    await page.locator('.opblock').first().waitFor({ timeout: EVENT_DEADLINE_MS })
    return { page, problems }
  }

  // Swagger UI renders a long document virtualized (150 tags and operations or more): only what is
  // near the viewport is in the page, so these scroll through it as a reader would.
  // One step down; resolves after the next two frames (the virtualizer renders what came into view) with whether the page moved.
  const scrollStep = (page: Page) =>
    page.evaluate<boolean>(
      '(() => { const before = window.scrollY; window.scrollBy(0, window.innerHeight * 0.8); const moved = window.scrollY !== before; return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(moved)))) })()',
    )

  /** Every operation path the page shows, top to bottom. */
  async function listedPaths(page: Page): Promise<string[]> {
    const seen = new Set<string>()
    await page.evaluate('window.scrollTo(0, 0)')
    for (let moved = true; moved; ) {
      for (const path of await page.locator('.opblock-summary-path').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path') ?? ''))) seen.add(path)
      moved = await scrollStep(page)
    }
    return [...seen]
  }

  /** The operation's block, scrolled into the page. */
  async function operationBlock(page: Page, method: string, path: string) {
    const operation = page.locator(`.opblock-${method}:has(.opblock-summary-path[data-path="${path}"])`).first()
    await page.evaluate('window.scrollTo(0, 0)')
    for (let moved = true; (await operation.count()) === 0 && moved; ) {
      moved = await scrollStep(page)
    }
    await operation.scrollIntoViewIfNeeded()
    return operation
  }

  async function tryItOut(page: Page, method: string, path: string): Promise<string> {
    const operation = await operationBlock(page, method, path)
    await operation.locator('.opblock-summary').click()
    await operation.locator('button.try-out__btn').click()
    await operation.locator('button.execute').click()
    const status = operation.locator('.live-responses-table tbody .response-col_status').first()
    await status.waitFor({ timeout: EVENT_DEADLINE_MS })
    return (await status.textContent())?.trim() ?? ''
  }

  for (const prefix of ['/services/v1', '/api/v2']) {
    it(`${prefix}/docs lists only ${prefix} routes and runs a GET`, async () => {
      const { page, problems } = await openDocs(prefix)
      const paths = await listedPaths(page)
      expect(paths.length).toBeGreaterThanOrEqual(20)
      for (const path of paths) expect(path?.startsWith(`${prefix}/`)).toBe(true)
      expect(await tryItOut(page, 'get', `${prefix}/users`)).toBe('200')
      expect(problems).toEqual([])
      await page.close()
    })

    it(`${prefix}/docs authorizes with the password flow and calls a protected endpoint`, async () => {
      const { page, problems } = await openDocs(prefix)
      await page.locator('.auth-wrapper button.authorize').click()
      await page.locator('#oauth_username').fill(user.username)
      await page.locator('#oauth_password').fill(user.password)
      // The dialog also offers the API-key scheme: act in the OAuth2 block.
      const oauth = page.locator('.auth-container', { hasText: 'OAuth2PasswordBearer' })
      await oauth.locator('.auth-btn-wrapper button.authorize').click()
      await oauth.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor({ timeout: EVENT_DEADLINE_MS })
      await oauth.locator('.auth-btn-wrapper button.btn-done').click()
      expect(await tryItOut(page, 'get', `${prefix}/users/me`)).toBe('200')
      const body = await page.locator(`.opblock-get:has([data-path="${prefix}/users/me"]) .live-responses-table .highlight-code`).first().textContent()
      expect(body).toContain(user.username)
      expect(problems).toEqual([])
      await page.close()
    })
  }
})
