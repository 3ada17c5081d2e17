// Markdown posts written through HTTP from a published XSS corpus (test/helpers/xss-corpus.ts),
// each case its own post, and their `html` put into a page of Debian's Chromium as a frontend
// would put it: no script runs (no dialog opens, no alert, confirm, prompt or print is called,
// no page error), and the DOM Chromium built holds no script element, no event handler and no
// link or image that leaves http(s). Requests the page makes are answered by nothing.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { launchChromium } from '../../../test/helpers/browser.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { markdownXssCases } from '../../../test/helpers/xss-corpus.js'

const chromiumPath = inject('chromiumPath')
const FRONTEND = 'http://frontend.test/'

/** Runs before anything of the page: every way the corpus's scripts announce themselves is recorded. */
const RECORDER = `
window.__ran = []
for (const name of ['alert', 'confirm', 'prompt', 'print']) window[name] = (...args) => { window.__ran.push(name + '(' + args.join(',') + ')') }
`

/** True once every image has loaded or failed (its onerror, were there one, has had its turn). */
const EVERY_IMAGE_SETTLED = '[...document.images].every((image) => image.complete)'

/** What Chromium built that could run script or leave http(s), and what ran; in the page's own JavaScript. */
const FIND_UNSAFE = `(() => {
  const unsafe = []
  const NEVER = ['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'STYLE', 'LINK', 'META', 'BASE', 'FORM', 'SVG', 'MATH']
  for (const element of document.querySelectorAll('*')) {
    if (NEVER.includes(element.tagName.toUpperCase())) unsafe.push('<' + element.tagName + '>')
    for (const attribute of element.attributes) if (attribute.name.startsWith('on')) unsafe.push(attribute.name + ' on <' + element.tagName + '>')
  }
  for (const link of document.querySelectorAll('a[href]')) {
    if (!['http:', 'https:', 'mailto:'].includes(link.protocol)) unsafe.push('link to ' + link.href)
    else if (link.protocol !== 'mailto:' && link.host !== location.host && link.rel !== 'noopener nofollow ugc') unsafe.push('link to another site without rel: ' + link.href)
  }
  for (const image of document.images) if (image.getAttribute('src') !== null && !['http:', 'https:'].includes(new URL(image.src).protocol)) unsafe.push('image from ' + image.src)
  return { unsafe, ran: window.__ran, articles: document.querySelectorAll('article').length }
})()`

describe.skipIf(!chromiumPath)('Markdown posts from an XSS corpus in a browser', () => {
  let t: TestApp
  let browser: Browser
  let page: Page
  const html: string[] = []

  beforeAll(async () => {
    t = await createTestApp({ DEFAULT_RATE_LIMIT: '100000/60' })
    const author = await seedAndLogin(t.app)
    for (const text of markdownXssCases()) {
      const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: 'Corpus', text, format: 'markdown' } })
      expect(response.statusCode, response.body).toBe(201)
      html.push(response.json<{ html: string }>().html)
    }
    browser = await launchChromium(chromiumPath)
    page = await browser.newPage()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('runs no script and builds no unsafe element from any of them', async () => {
    const ran: string[] = []
    page.on('dialog', (dialog) => {
      ran.push(`dialog ${dialog.type()}: ${dialog.message()}`)
      void dialog.dismiss()
    })
    page.on('pageerror', (error) => ran.push(`page error: ${error.message}`))
    const body = `<!doctype html><html><body>${html.map((one) => `<article>${one}</article>`).join('\n')}</body></html>`
    // The frontend's own page, at an http origin, so that relative addresses resolve as they would there.
    await page.route('**/*', (route) => (route.request().url() === FRONTEND ? route.fulfill({ body, contentType: 'text/html' }) : route.abort()))
    await page.addInitScript(RECORDER)
    await page.goto(FRONTEND)
    await page.waitForFunction(EVERY_IMAGE_SETTLED)
    const found = (await page.evaluate(FIND_UNSAFE)) as { unsafe: string[]; ran: string[]; articles: number }
    expect(found.articles).toBe(html.length)
    expect(found.unsafe).toEqual([])
    expect([...ran, ...found.ran]).toEqual([])
  })
})
