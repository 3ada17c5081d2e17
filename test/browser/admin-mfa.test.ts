// The admin console's sign-in with a second factor, in real headless Chromium, on SQLite and on
// PostgreSQL, with REQUIRE_MFA_FOR_SUPERUSERS on: a superuser without one is told to enrol; a
// superuser with TOTP signs in with the password and then a code (a wrong code is refused on the
// page); a superuser with a passkey signs in with it, or uses it as the second factor (Chromium's
// virtual authenticator); a user's page shows their factors and removes them.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { launchChromium, watchProblems } from '../helpers/browser.js'
import { freePort } from '../helpers/process.js'
import { aWrongCode, enrolTotp, totpCode } from '../helpers/totp.js'
import { login, seedUser, V2 } from '../helpers/users.js'

const chromiumPath = inject('chromiumPath')

describe.skipIf(!chromiumPath)('the admin console with second factors, in Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  let page: Page
  let problems: string[]
  const bearer = async (who: { username: string; password: string }) => ({ authorization: `Bearer ${(await login(t.app, who.username, who.password)).accessToken}` })

  beforeAll(async () => {
    // localhost: passkeys need a secure context, and PUBLIC_URL's host is their relying party.
    const port = await freePort()
    base = `http://localhost:${port}`
    t = await createTestApp({ REQUIRE_MFA_FOR_SUPERUSERS: 'true', PUBLIC_URL: base })
    await t.app.listen({ host: '127.0.0.1', port })
    browser = await launchChromium(chromiumPath)
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    problems = watchProblems(page)
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  async function signIn(username: string, password: string): Promise<void> {
    await page.goto(`${base}/admin/`)
    await page.getByLabel('Username or email').fill(username)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }

  it('tells a superuser without a second factor to set one up, and ends the session it opened', async () => {
    const admin = await seedUser(t.app, { username: 'unenrolled_admin' }, { superuser: true })
    await signIn(admin.username, admin.password)
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('has no second factor')
    const sessions = await t.db.selectFrom('sessions').select('revoked_at').where('user_id', '=', admin.id).execute()
    expect(sessions.map((session) => session.revoked_at)).toEqual([expect.anything()])
  })

  it('signs a superuser with TOTP in with the password, then a code; a wrong code is refused on the page', async () => {
    const admin = await seedUser(t.app, { username: 'totp_admin' }, { superuser: true })
    const { secret, confirmedStep } = await enrolTotp(t.app, await bearer(admin))
    await signIn(admin.username, admin.password)
    const code = page.getByLabel('Code from your authenticator app, or a recovery code')
    await code.fill(aWrongCode(secret))
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid code')
    await code.fill(totpCode(secret, confirmedStep + 1))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  })

  it('signs a superuser in with a passkey, and takes it as the second factor after the password', async () => {
    const admin = await seedUser(t.app, { username: 'passkey_admin' }, { superuser: true })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    })
    // The passkey is registered on the account security page, then the console is signed into afresh.
    await page.context().clearCookies()
    await page.goto(`${base}/account/security`)
    await page.getByLabel('Username or email').fill(admin.username)
    await page.getByLabel('Password').fill(admin.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.locator('#passkeys-message', { hasText: 'Added My passkey' }).waitFor()
    await page.context().clearCookies()

    await page.goto(`${base}/admin/`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

    await page.context().clearCookies()
    await signIn(admin.username, admin.password)
    await page.getByRole('button', { name: 'Use a passkey' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    const methods = await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', admin.id).where('type', 'in', ['login_succeeded', 'mfa_verified']).execute()
    expect(methods.map((row) => `${row.type}:${row.method}`)).toEqual(expect.arrayContaining(['login_succeeded:passkey', 'mfa_verified:passkey']))
  })

  it("shows a user's second factors on their page and removes them, ending the user's sessions", async () => {
    const member = await seedUser(t.app, { username: 'member_with_totp' })
    const headers = await bearer(member)
    await enrolTotp(t.app, headers)
    await page.goto(`${base}/admin/#/users/${member.id}`)
    await page.getByRole('heading', { level: 1, name: 'member_with_totp' }).waitFor()
    await page.getByText('10 recovery codes left').waitFor()
    await page.getByRole('button', { name: 'Remove second factors…' }).click()
    await page.getByRole('button', { name: 'Yes, remove second factors' }).click()
    await page.getByRole('status').filter({ hasText: 'Second factors removed' }).waitFor()
    await page.getByText('No second factor.').waitFor()
    expect((await t.app.inject({ url: `${V2}/users/me`, headers })).statusCode).toBe(401)
    expect((await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: member.username, password: member.password } })).statusCode).toBe(200)
  })

  it('raised no console error and no CSP violation on the way', () => {
    // The answers the console expects: 401 from the refresh tried at each first load, the
    // password's mfa_required and the wrong code; 403 for the superuser with no second factor.
    const expected = /^Failed to load resource: the server responded with a status of 40[13]/
    expect(problems.filter((problem) => !expected.test(problem))).toEqual([])
  })
})
