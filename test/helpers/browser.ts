// Debian's Chromium driven by playwright-core (never a downloaded browser), with the flags this
// machine's closed network needs; and a page that records every console error and page error.
import type { Browser, Page } from 'playwright-core'
import { chromium } from 'playwright-core'

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  })
}

/** Console errors (a CSP violation is one) and uncaught page errors, collected as they happen. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  return problems
}

/** Chromium with one page open at `url`, and the problems that page reports. */
export async function openPage(executablePath: string, url: string): Promise<{ browser: Browser; page: Page; problems: string[] }> {
  const browser = await launchChromium(executablePath)
  const page = await browser.newPage()
  const problems = watchProblems(page)
  await page.goto(url)
  return { browser, page, problems }
}
