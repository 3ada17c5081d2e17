// Passkeys and TOTP on the service's own account security page (/account/security), in Debian's
// Chromium with its virtual authenticator (CDP WebAuthn.addVirtualAuthenticator), over
// http://localhost:PORT (a secure context), on SQLite and on PostgreSQL: register a passkey,
// sign in with it without a username, use it as the second factor after a password, refuse a
// cloned authenticator's counter, and set up TOTP from the QR code the page shows.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { launchChromium, watchProblems } from '../../../test/helpers/browser.js'
import { freePort } from '../../../test/helpers/process.js'
import { awayFromStepEdge, totpCode } from '../../../test/helpers/totp.js'
import { seedUser } from '../../../test/helpers/users.js'

const chromiumPath = inject('chromiumPath')

interface VirtualCredential {
  credentialId: string
  isResidentCredential: boolean
  rpId: string
  privateKey: string
  userHandle?: string
  signCount: number
}

describe.skipIf(!chromiumPath)('passkeys on the account security page, in Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let cdp: CDPSession
  let authenticatorId: string
  /** Each browser profile's console errors. */
  const problems: string[][] = []
  let user: Awaited<ReturnType<typeof seedUser>>

  beforeAll(async () => {
    const port = await freePort()
    base = `http://localhost:${port}`
    t = await createTestApp({ PUBLIC_URL: base })
    await t.app.listen({ host: '127.0.0.1', port })
    user = await seedUser(t.app, { username: 'passkey_person' })
    browser = await launchChromium(chromiumPath)
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  /** A fresh browser profile with a platform authenticator that verifies its user. */
  async function freshBrowser() {
    await context?.close()
    context = await browser.newContext()
    page = await context.newPage()
    problems.push(watchProblems(page))
    cdp = await context.newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    authenticatorId = (
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      })
    ).authenticatorId
  }

  const status = (id: string) => page.locator(`#${id}`)

  /**
   * Waits until the page shows the user signed in; a refusal the page shows instead (in the
   * sign-in or second-factor messages) fails at once, with its words.
   */
  async function signedInAs(username: string) {
    const refusal = page.locator('#sign-in-message[role="alert"], #mfa-message[role="alert"]').filter({ hasText: /\S/ })
    await page.locator('#who', { hasText: username }).or(refusal).first().waitFor()
    if (await refusal.count()) throw new Error(`the page refused the sign-in: ${await refusal.first().textContent()}`)
  }

  async function signInWithPassword() {
    await page.goto(`${base}/account/security`)
    await page.getByLabel('Username or email').fill(user.username)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }

  it('registers a passkey after a password sign-in, and shows it', async () => {
    await freshBrowser()
    await signInWithPassword()
    await page.locator('#who', { hasText: user.username }).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Virtual key')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await status('passkeys-message').filter({ hasText: 'Added Virtual key' }).waitFor()
    await page.getByRole('button', { name: 'Remove Virtual key' }).waitFor()
    const credentials = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
    expect(credentials).toHaveLength(1)
    expect(credentials[0]!.isResidentCredential).toBe(true)
    const stored = await t.db.selectFrom('passkeys').selectAll().where('user_id', '=', user.id).execute()
    // CDP names the credential in base64, the API in base64url.
    expect(stored.map((row) => row.credential_id)).toEqual([Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url')])
  })

  it('signs in with the passkey without a username, and a password sign-in then asks for the passkey as the second factor', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await signedInAs(user.username)
    const methods = await t.db.selectFrom('security_events').select('method').where('user_id', '=', user.id).where('type', '=', 'login_succeeded').execute()
    expect(methods.map((row) => row.method)).toContain('passkey')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await signInWithPassword()
    const refused = page.locator('#sign-in-message[role="alert"]').filter({ hasText: /\S/ })
    await page.getByRole('heading', { name: 'Second factor' }).or(refused).first().waitFor()
    expect(await refused.count(), 'the password sign-in was refused').toBe(0)
    await page.getByRole('button', { name: 'Use a passkey' }).click()
    await signedInAs(user.username)
    const verified = await t.db.selectFrom('security_events').select('method').where('user_id', '=', user.id).where('type', '=', 'mfa_verified').execute()
    expect(verified.map((row) => row.method)).toEqual(['passkey'])
  })

  it("refuses a cloned authenticator whose counter is behind the original's", async () => {
    const [original] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[]
    expect(original!.signCount).toBeGreaterThan(1)
    // Another browser holding a copy of the key, with a counter from before the last two uses.
    await freshBrowser()
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...original!, signCount: 1 } })
    await page.goto(`${base}/account/security`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await status('sign-in-message').filter({ hasText: 'Invalid passkey' }).waitFor()
    const refused = await t.db.selectFrom('security_events').select('type').where('user_id', '=', user.id).where('type', '=', 'passkey_counter_refused').execute()
    expect(refused).toHaveLength(1)
  })

  it('sets up TOTP from the QR code on the page, shows the recovery codes once, and signs in with a code', async () => {
    const person = await seedUser(t.app, { username: 'totp_person' })
    await freshBrowser()
    await page.goto(`${base}/account/security`)
    await page.getByLabel('Username or email').fill(person.username)
    await page.getByLabel('Password').fill(person.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
    const qr = page.getByRole('img', { name: 'QR code for the authenticator app' })
    await qr.waitFor()
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/)
    expect(await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0)
    const secret = (await page.locator('#totp-secret').textContent())!
    const step = await awayFromStepEdge()
    await page.getByLabel('Code from the app', { exact: true }).fill(totpCode(secret, step))
    await page.getByRole('button', { name: 'Turn on' }).click()
    await page.locator('#recovery-codes li').nth(9).waitFor()
    expect(await page.locator('#recovery-codes li').count()).toBe(10)
    await page.locator('#recovery-codes-left', { hasText: '10' }).waitFor()

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('Username or email').fill(person.username)
    await page.getByLabel('Password').fill(person.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByLabel('Code from your authenticator app, or a recovery code').fill(totpCode(secret, step + 1))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.locator('#who', { hasText: person.username }).waitFor()
  })

  it('raised no console error and no CSP violation on the way', () => {
    // The answers the page expects: 401 from the refresh tried at each first load (no session
    // yet), the password's mfa_required and the cloned passkey's refusal.
    const expected = /^Failed to load resource: the server responded with a status of 401/
    expect(problems.flat().filter((problem) => !expected.test(problem))).toEqual([])
  })
})
