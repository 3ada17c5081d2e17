// A browser app on its own origin, end to end, in Debian's Chromium on both databases: a page
// served from a second port loads the built client (clients/typescript) and, against the running
// service, signs up through v2, creates and lists posts, resumes after a reload through the
// refresh cookie alone, and logs out. A page from an origin CORS_ORIGINS does not list is
// refused by the browser itself.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { launchChromium, watchProblems } from '../helpers/browser.js'
import { buildClient, serveFrontend } from '../helpers/frontend.js'
import { userFields } from '../helpers/users.js'

const chromiumPath = inject('chromiumPath')

/** The frontend: one page whose module script drives the client; the test calls (globalThis as unknown as FrontendWindow).frontend. */
const pageHtml = (apiBase: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A frontend</title>
<script type="importmap">{ "imports": { "openapi-fetch": "/vendor/openapi-fetch.mjs" } }</script>
<script type="module">
  import { allItems, createClient, unwrap } from '/client/index.js'
  const { api, auth } = createClient({ baseUrl: ${JSON.stringify(apiBase)} })
  window.frontend = {
    signUp: async (fields) => (await auth.signUp(fields)).username,
    me: async () => (await unwrap(api.GET('/api/v2/users/me'))).username,
    resume: async () => (await auth.resume()) !== null,
    refresh: async () => (await auth.refresh()) !== null,
    post: async (title) => (await unwrap(api.POST('/api/v2/posts/', { body: { title, text: 'written in the browser' } }))).id,
    titles: async (authorId) => {
      const titles = []
      for await (const post of allItems((cursor) => unwrap(api.GET('/api/v2/posts', { params: { query: { author_id: authorId, limit: 1, ...(cursor ? { cursor } : {}) } } })))) titles.push(post.title)
      return titles
    },
    myId: async () => (await unwrap(api.GET('/api/v2/users/me'))).id,
    logout: () => auth.logout(),
    status: async () => (await api.GET('/api/v2/users/me')).response.status,
    rawFetch: () => fetch(${JSON.stringify(apiBase)} + '/api/v2/posts/', { credentials: 'include' }).then((response) => 'answered ' + response.status, (error) => 'refused: ' + error.message),
  }
  document.body.dataset.ready = 'yes'
</script></head><body><h1>A frontend</h1></body></html>`

describe.skipIf(!chromiumPath)('a frontend on another origin, in Chromium', () => {
  let t: TestApp
  let apiBase = ''
  let clientDir: string
  let listed: Awaited<ReturnType<typeof serveFrontend>>
  let unlisted: Awaited<ReturnType<typeof serveFrontend>>
  let browser: Browser
  let page: Page
  let problems: string[]

  beforeAll(async () => {
    // The client built as it ships (JavaScript and declarations), into a directory of this test's own.
    clientDir = await mkdtemp(path.join(tmpdir(), 'ups-frontend-'))
    await buildClient(clientDir)
    listed = await serveFrontend(clientDir, () => pageHtml(apiBase))
    unlisted = await serveFrontend(clientDir, () => pageHtml(apiBase))
    t = await createTestApp({ CORS_ORIGINS: listed.origin })
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
    apiBase = address.replace('127.0.0.1', 'localhost')
    browser = await launchChromium(chromiumPath)
    // A context of its own, so a second tab shares the page's cookies.
    page = await (await browser.newContext()).newPage()
    problems = watchProblems(page)
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await listed?.close()
    await unlisted?.close()
    await rm(clientDir, { recursive: true, force: true })
  })

  const open = async (target: Page, origin: string) => {
    await target.goto(`${origin}/`)
    await target.waitForSelector('body[data-ready="yes"]')
  }

  it('signs up, posts, resumes after a reload through the refresh cookie, and logs out', async () => {
    await open(page, listed.origin)
    const fields = { ...userFields(), accept_terms: true }
    expect(await page.evaluate((values) => (globalThis as unknown as FrontendWindow).frontend.signUp(values), fields)).toBe(fields.username)
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.me())).toBe(fields.username)
    await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.post('First from the browser'))
    await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.post('Second from the browser'))
    const myId = await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.myId())
    expect(await page.evaluate((id) => (globalThis as unknown as FrontendWindow).frontend.titles(id), myId)).toEqual(['Second from the browser', 'First from the browser'])

    // A reload forgets everything the page held; the HttpOnly cookie brings the session back, on
    // the first call by itself (resume() does the same on demand).
    await page.reload()
    await page.waitForSelector('body[data-ready="yes"]')
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.status())).toBe(200)
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.resume())).toBe(true)
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.me())).toBe(fields.username)
    const cookies = await page.context().cookies(apiBase)
    expect(cookies.find((cookie) => cookie.name === 'refresh_token')).toMatchObject({ httpOnly: true, sameSite: 'Lax' })

    // A second tab shares the cookie: each tab refreshing in turn keeps both signed in (a refresh
    // token kept in one page's memory would already be rotated away by the other, and reusing it
    // ends the session).
    const tab = await page.context().newPage()
    await open(tab, listed.origin)
    expect(await tab.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.resume())).toBe(true)
    for (const [who, other] of [[page, tab], [tab, page], [page, tab]] as const) {
      expect(await who.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.refresh())).toBe(true)
      expect(await other.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.refresh())).toBe(true)
    }
    expect(await tab.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.me())).toBe(fields.username)
    await tab.close()

    await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.logout())
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.status())).toBe(401)
    await page.reload()
    await page.waitForSelector('body[data-ready="yes"]')
    expect(await page.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.resume())).toBe(false)
    // The page read every answer it needed (no CORS errors); the 401s above are expected answers.
    expect(problems.filter((problem) => /CORS|blocked/i.test(problem))).toEqual([])
  })

  it('is refused by the browser on a page whose origin CORS_ORIGINS does not list', async () => {
    const other = await browser.newPage()
    const otherProblems = watchProblems(other)
    await open(other, unlisted.origin)
    expect(await other.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.rawFetch())).toMatch(/^refused: /)
    expect(await other.evaluate(() => (globalThis as unknown as FrontendWindow).frontend.resume().then(String, (error: Error) => `refused: ${error.message}`))).toMatch(/^refused: /)
    expect(otherProblems.some((problem) => /CORS policy/.test(problem))).toBe(true)
    await other.close()
  })
})

/** What the page's script puts on its window for the test to call. */
interface FrontendWindow {
  frontend: {
    signUp(fields: object): Promise<string>
    me(): Promise<string>
    resume(): Promise<boolean>
    refresh(): Promise<boolean>
    post(title: string): Promise<number>
    titles(authorId: number): Promise<string[]>
    myId(): Promise<number>
    logout(): Promise<void>
    status(): Promise<number>
    rawFetch(): Promise<string>
  }
}
