// The admin console at /admin/ in real headless Chromium, on SQLite and on PostgreSQL: a
// superuser signs in, finds a user by search, changes its tier, soft-deletes and restores it and
// removes a post; a non-superuser is refused. Every result is checked through the API too. The
// page keeps its strict CSP with no violation, keeps tokens out of storage, works at phone width,
// and axe-core finds no serious or critical violation on the main pages.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { ADMIN_CONSOLE_DIR } from '../../src/api/admin-console.routes.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp } from '../helpers/app.js'
import { launchChromium, watchProblems } from '../helpers/browser.js'
import { multipart } from '../helpers/multipart.js'
import { login, seedUser,V2 } from '../helpers/users.js'
import { waitFor } from '../helpers/wait.js'
import { WebhookReceiver } from '../helpers/webhook-receiver.js'

const chromiumPath = inject('chromiumPath')
const NOT_A_SUPERUSER = 'This account is not a superuser. The admin console is for superusers only.'

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

describe.skipIf(!chromiumPath)('the admin console in Chromium', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  let page: Page
  let problems: string[]
  let axeSource: string
  let admin: Awaited<ReturnType<typeof seedUser>>
  let member: Awaited<ReturnType<typeof seedUser>>
  let target: Awaited<ReturnType<typeof seedUser>>
  let adminToken: string
  let receiver: WebhookReceiver

  const api = (url: string) => t.app.inject({ url: `${V2}${url}`, headers: { authorization: `Bearer ${adminToken}` } })

  beforeAll(async () => {
    // MAIL_PREVIEW as in development: the Mail page lists what the service queued.
    // Posts, users and organizations carry custom fields of each level: the console shows and edits them all.
    const contentSchema = {
      posts: { properties: { rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public' }, crm_id: { type: 'string', visibility: 'server' } } },
      users: { properties: { team: { type: 'string', visibility: 'public' }, plan: { type: 'string', visibility: 'server' } } },
      orgs: { properties: { sector: { type: 'string', visibility: 'public' }, account: { type: 'string', visibility: 'server' } } },
    }
    t = await createTestApp({ MAIL_PREVIEW: 'on', WEBHOOK_ALLOW_PRIVATE: 'true', CONTENT_SCHEMA: JSON.stringify(contentSchema) })
    receiver = await new WebhookReceiver().start()
    base = await t.app.listen({ host: '127.0.0.1', port: 0 })
    admin = await seedUser(t.app, { name: 'Console Admin', username: 'console_admin', email: 'console.admin@example.com' }, { superuser: true })
    member = await seedUser(t.app, { name: 'Plain Member', username: 'plain_member' })
    target = await seedUser(t.app, { name: 'Grace Hopper', username: 'grace_hopper', email: 'grace@example.com' })
    adminToken = (await login(t.app, admin.username, admin.password)).accessToken
    await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, headers: { authorization: `Bearer ${adminToken}` }, payload: { name: 'pro' } })
    axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
    browser = await launchChromium(chromiumPath)
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    problems = watchProblems(page)
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await receiver?.close()
  })

  async function seriousViolations(): Promise<string[]> {
    await page.evaluate(axeSource)
    const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((results) => results.violations)')
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')})`)
  }

  async function signIn(username: string, password: string): Promise<void> {
    await page.getByLabel('Username or email').fill(username)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }

  const heading = (name: string) => page.getByRole('heading', { level: 1, name })

  it('is served with a strict policy and no inline script', async () => {
    const response = await fetch(`${base}/admin/`)
    expect(response.status).toBe(200)
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).not.toContain('unsafe-inline')
    const html = await response.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=/)
    const built = await readFile(path.join(ADMIN_CONSOLE_DIR, 'index.html'), 'utf8')
    expect(html).toBe(built)
  })

  it('refuses a non-superuser with a clear message and ends the session it opened', async () => {
    await page.goto(`${base}/admin/`)
    expect(await seriousViolations()).toEqual([])
    await signIn(member.username, member.password)
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(NOT_A_SUPERUSER)
    await expect.poll(async () => (await api(`/admin/users/${member.id}/sessions`)).json()).toEqual([])
  })

  it('signs a superuser in by email, shows the overview, and keeps tokens out of storage', async () => {
    await page.goto(`${base}/admin/`)
    await signIn(admin.email, admin.password)
    await heading('Overview').waitFor()
    await page.getByRole('img', { name: 'Sign-ups and logins per day over the last 7 days' }).waitFor()
    const users = page.locator('.cards li', { hasText: 'Users' }).locator('strong')
    expect(await users.textContent()).toBe('3')
    const stored = await page.evaluate('({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie })')
    expect(stored).toEqual({ local: 0, session: 0, cookie: '' })
    expect(await seriousViolations()).toEqual([])
  })

  it('resumes after a reload from the refresh cookie, without asking again', async () => {
    await page.reload()
    await heading('Overview').waitFor()
  })

  it('finds a user by search and changes their tier', async () => {
    await page.getByRole('link', { name: 'Users' }).click()
    await heading('Users').waitFor()
    expect(await seriousViolations()).toEqual([])
    await page.getByLabel('Search users').fill('grace')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'grace_hopper' }).click()
    await heading('grace_hopper').waitFor()
    expect(await seriousViolations()).toEqual([])

    await page.getByLabel('Tier').selectOption('pro')
    await page.getByRole('button', { name: 'Change tier' }).click()
    await page.getByRole('status').filter({ hasText: 'Tier set to pro' }).waitFor()
    expect((await api(`/users/${target.id}`)).json().subscription_tier).toBe('pro')
  })

  it("shows the user's files and storage usage", async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    const form = multipart([{ field: 'file', filename: 'compiler-notes.txt', contentType: 'text/plain', data: Buffer.from('A-0 was written in 1952.') }])
    expect((await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...headers } })).statusCode).toBe(201)
    await page.reload()
    await heading('grace_hopper').waitFor()
    await page.getByRole('heading', { name: 'Files' }).waitFor()
    await expect.poll(() => page.getByTestId('storage-usage').textContent()).toBe('24 bytes of 1.0 GiB in 1 of 10000 files')
    await page.getByRole('row').filter({ hasText: 'compiler-notes.txt' }).waitFor()
    expect(await seriousViolations()).toEqual([])
  })

  it('soft-deletes the user and restores them', async () => {
    await page.getByRole('button', { name: 'Soft delete…' }).click()
    await page.getByRole('button', { name: 'Yes, soft delete' }).click()
    await page.getByRole('status').filter({ hasText: 'User soft-deleted' }).waitFor()
    expect((await t.app.inject({ url: `${V2}/users/${target.id}` })).statusCode).toBe(404)

    await page.getByRole('button', { name: 'Restore user' }).click()
    await page.getByRole('status').filter({ hasText: 'User restored' }).waitFor()
    expect((await t.app.inject({ url: `${V2}/users/${target.id}` })).statusCode).toBe(200)
  })

  it('bans the user with a reason and a message, and lifts the ban', async () => {
    await page.getByLabel('Reason (for superusers)').fill('spam wave of 12 May')
    await page.getByLabel('Message to the user (optional)').fill('Your account is suspended. Write to appeals@example.com.')
    await page.getByRole('button', { name: 'Ban user' }).click()
    await page.getByRole('status').filter({ hasText: 'User banned' }).waitFor()
    await page.locator('h1 .badge', { hasText: 'Banned' }).waitFor()
    await page.getByText('Forever: spam wave of 12 May').waitFor()
    const refused = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: target.username, password: target.password } })
    expect(refused.json()).toMatchObject({ code: 'account_banned', detail: 'Your account is suspended. Write to appeals@example.com.' })
    expect(await seriousViolations()).toEqual([])

    await page.getByRole('button', { name: 'Lift ban' }).click()
    await page.getByRole('status').filter({ hasText: 'Ban lifted' }).waitFor()
    expect((await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: target.username, password: target.password } })).statusCode).toBe(200)
  })

  it("views the user's account as them under a banner on every view, and ends it", async () => {
    await page.getByLabel('Reason (shown to the user)').fill('ticket 4521: missing drafts')
    await page.getByRole('button', { name: 'View as this user' }).click()
    await heading("grace_hopper's view").waitFor()
    const banner = page.getByTestId('impersonation-banner')
    await expect.poll(() => banner.textContent()).toContain('Viewing as grace_hopper — read-only')
    await page.getByTestId('view-as-profile').getByText('Grace Hopper').waitFor()
    expect(await seriousViolations()).toEqual([])
    // The banner stays while the console shows its own views.
    await page.goto(`${base}/admin/#/users`)
    await heading('Users').waitFor()
    await banner.waitFor()
    const [running] = (await api(`/admin/impersonations?user_id=${target.id}`)).json().data
    expect(running).toMatchObject({ superuser_id: admin.id, mode: 'read_only', reason: 'ticket 4521: missing drafts', ended_at: null })

    await banner.getByRole('button', { name: 'End' }).click()
    await heading('grace_hopper').waitFor()
    await banner.waitFor({ state: 'detached' })
    const [ended] = (await api(`/admin/impersonations?user_id=${target.id}`)).json().data
    expect(ended.ended_at).not.toBeNull()
    const seen = (await api(`/security-events?user_id=${target.id}&type=impersonation_started`)).json().data
    expect(seen).toEqual([expect.objectContaining({ actor_id: admin.id, details: expect.objectContaining({ mode: 'read_only', reason: 'ticket 4521: missing drafts' }) })])
  })

  it('shows an API error as a readable message', async () => {
    await page.getByLabel('Username', { exact: true }).fill(member.username)
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Username not available')
  })

  it('removes a post, and deletes another permanently after a typed confirmation', async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    const write = async (title: string) =>
      (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers, payload: { title, text: 'Written for the console test' } })).json().id as number
    const first = await write('Compilers for everyone')
    const second = await write('Nanoseconds on a wire')

    await page.getByRole('link', { name: 'Posts', exact: true }).click()
    await heading('Posts').waitFor()
    await page.getByLabel('Search posts').fill('compilers')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'Compilers for everyone' }).click()
    await heading('Compilers for everyone').waitFor()
    expect(await seriousViolations()).toEqual([])
    await page.getByRole('button', { name: 'Soft delete…' }).click()
    await page.getByRole('button', { name: 'Yes, soft delete' }).click()
    await page.getByRole('status').filter({ hasText: `Post ${first} soft-deleted` }).waitFor()
    expect((await t.app.inject({ url: `${V2}/posts/${first}` })).statusCode).toBe(404)

    await page.goto(`${base}/admin/#/posts/${second}`)
    await heading('Nanoseconds on a wire').waitFor()
    await page.getByRole('button', { name: 'Delete permanently…' }).click()
    const confirm = page.getByRole('button', { name: 'Yes, delete permanently' })
    expect(await confirm.isDisabled()).toBe(true)
    await page.getByLabel('Type delete to confirm').fill('delete')
    await confirm.click()
    await page.getByRole('status').filter({ hasText: `Post ${second} removed from the database` }).waitFor()
    expect((await t.app.inject({ url: `${V2}/posts/${second}` })).statusCode).toBe(404)
  })

  it("edits a post's title, visibility and custom fields, and shows the API's refusal of a bad value", async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    const id = (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers, payload: { title: 'Rated post', text: 'Has fields', fields: { rating: 2 } } })).json().id as number
    await page.goto(`${base}/admin/#/posts/${id}`)
    await heading('Rated post').waitFor()
    await page.getByRole('term').filter({ hasText: 'rating' }).waitFor()
    await page.getByLabel('Title', { exact: true }).fill('Rated and edited')
    await page.getByLabel('Visibility').selectOption('unlisted')
    await page.getByLabel('Custom fields (JSON)').fill('{"crm_id": "c-7"}')
    await page.getByRole('button', { name: 'Save post' }).click()
    await page.getByRole('status').filter({ hasText: `Post ${id} saved` }).waitFor()
    await heading('Rated and edited').waitFor()
    // rating was taken out of the JSON: the edit sent it as null; the server field is the superuser's to write.
    const read = (await api(`/posts/${id}`)).json<{ title: string; visibility: string; fields: Record<string, unknown> }>()
    expect(read).toMatchObject({ title: 'Rated and edited', visibility: 'unlisted', fields: { crm_id: 'c-7' } })
    await page.getByLabel('Custom fields (JSON)').fill('{"crm_id": "c-7", "rating": 9}')
    await page.getByRole('button', { name: 'Save post' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('rating')
    expect((await api(`/posts/${id}`)).json<{ fields: Record<string, unknown> }>().fields).toEqual({ crm_id: 'c-7' })
    expect(await seriousViolations()).toEqual([])
  })

  it("shows and edits a user's custom fields, server ones too, and shows the API's refusal of an undeclared one", async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    expect((await t.app.inject({ method: 'PATCH', url: `${V2}/users/${target.id}`, headers, payload: { fields: { team: 'core' } } })).statusCode).toBe(200)
    await page.goto(`${base}/admin/#/users/${target.id}`)
    await page.getByRole('term').filter({ hasText: 'team' }).waitFor()
    await page.getByLabel('Custom fields (JSON)').fill('{"team": "infra", "plan": "gold"}')
    await page.getByRole('button', { name: 'Save custom fields' }).click()
    await page.getByRole('status').filter({ hasText: 'Custom fields saved' }).waitFor()
    expect((await api(`/admin/users/${target.id}`)).json<{ fields: unknown }>().fields).toEqual({ team: 'infra', plan: 'gold' })
    await page.getByRole('term').filter({ hasText: 'plan' }).waitFor()
    await page.getByLabel('Custom fields (JSON)').fill('{"team": "infra", "plan": "gold", "shoe_size": 9}')
    await page.getByRole('button', { name: 'Save custom fields' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('shoe_size')
    expect(await seriousViolations()).toEqual([])
  })

  it('filters posts by visibility and status, and shows both', async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    for (const [title, visibility, status] of [['Open letter', 'public', 'published'], ['Secret plans', 'private', 'draft']]) {
      await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers, payload: { title, text: 'Written for the filter test', visibility, status } })
    }
    await page.getByRole('link', { name: 'Posts', exact: true }).click()
    await heading('Posts').waitFor()
    await page.getByRole('row').filter({ hasText: 'Open letter' }).waitFor()
    await page.getByLabel('Visibility').selectOption('private')
    await page.getByLabel('Status').selectOption('draft')
    await page.getByRole('button', { name: 'Search' }).click()
    // The unfiltered list a superuser sees holds both posts: wait for the filtered one, which holds only the draft.
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Open letter' }).count()).toBe(0)
    const row = page.getByRole('row').filter({ hasText: 'Secret plans' })
    await row.waitFor()
    expect(await row.textContent()).toContain('private')
    expect(await row.textContent()).toContain('draft')
    expect(await seriousViolations()).toEqual([])
  })

  it("shows a post's comments and removes one, and works the reports queue", async () => {
    const writer = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    const reader = { authorization: `Bearer ${(await login(t.app, member.username, member.password)).accessToken}` }
    const postId = (await t.app.inject({ method: 'POST', url: `${V2}/posts/`, headers: writer, payload: { title: 'Talk to me', text: 'Comments welcome' } })).json().id as number
    const say = async (text: string) => (await t.app.inject({ method: 'POST', url: `${V2}/posts/${postId}/comments`, headers: reader, payload: { text } })).json().id as number
    const spam = await say('Cheap watches here')
    const kind = await say('A kind word')
    const report = await t.app.inject({ method: 'POST', url: `${V2}/reports`, headers: writer, payload: { target: 'comment', id: spam, reason: 'spam' } })
    expect(report.statusCode, report.body).toBe(201)

    await page.goto(`${base}/admin/#/posts/${postId}`)
    await heading('Talk to me').waitFor()
    await page.getByText('A kind word').waitFor()
    expect(await seriousViolations()).toEqual([])
    await page.getByRole('button', { name: `Remove comment ${kind}…` }).click()
    await page.getByRole('button', { name: `Yes, remove comment ${kind}` }).click()
    await page.getByRole('status').filter({ hasText: `Comment ${kind} removed` }).waitFor()
    expect((await t.app.inject({ url: `${V2}/comments/${kind}` })).json()).toMatchObject({ status: 'removed', text: null })

    await page.getByRole('link', { name: 'Reports', exact: true }).click()
    await heading('Reports').waitFor()
    const row = page.getByRole('row').filter({ hasText: `Comment ${spam}` })
    await row.waitFor()
    expect(await row.textContent()).toContain('spam')
    expect(await seriousViolations()).toEqual([])
    await row.getByRole('button', { name: 'Hide…' }).click()
    await row.getByRole('button', { name: 'Yes, hide' }).click()
    await page.getByRole('status').filter({ hasText: `Report ${report.json().id}: hide` }).waitFor()
    await expect.poll(() => page.getByRole('row').filter({ hasText: `Comment ${spam}` }).count()).toBe(0)
    expect((await t.app.inject({ url: `${V2}/comments/${spam}` })).json()).toMatchObject({ status: 'hidden', text: null })
  })

  it("lists organizations, shows one's members, and deletes it after typing its slug", async () => {
    const headers = { authorization: `Bearer ${(await login(t.app, target.username, target.password)).accessToken}` }
    const org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers, payload: { name: 'Analytical Engines', slug: 'engines', fields: { sector: 'engines' } } })).json() as { id: number }
    await page.getByRole('link', { name: 'Organizations' }).click()
    await heading('Organizations').waitFor()
    await page.getByRole('link', { name: 'Analytical Engines' }).click()
    await heading('Analytical Engines').waitFor()
    // Its custom fields, shown and edited (a server field is the superuser's to write).
    await page.getByRole('term').filter({ hasText: 'sector' }).waitFor()
    await page.getByLabel('Custom fields (JSON)').fill('{"sector": "computing", "account": "a-1"}')
    await page.getByRole('button', { name: 'Save custom fields' }).click()
    await page.getByRole('status').filter({ hasText: 'Custom fields saved' }).waitFor()
    expect((await api(`/admin/orgs/${org.id}`)).json<{ fields: unknown }>().fields).toEqual({ sector: 'computing', account: 'a-1' })
    await page.getByRole('term').filter({ hasText: 'account' }).waitFor()
    const members = page.getByRole('region', { name: 'Members' })
    await members.getByRole('link', { name: 'grace_hopper' }).waitFor()
    expect(await members.getByRole('cell', { name: 'owner' }).count()).toBe(1)
    expect(await seriousViolations()).toEqual([])
    // The member's own page names the organization.
    await members.getByRole('link', { name: 'grace_hopper' }).click()
    await page.getByRole('link', { name: 'Analytical Engines' }).waitFor()
    await page.getByRole('link', { name: 'Analytical Engines' }).click()
    await heading('Analytical Engines').waitFor()
    await page.getByRole('button', { name: 'Delete organization…' }).click()
    await page.getByLabel('Type engines to confirm').fill('engines')
    await page.getByRole('button', { name: 'Yes, delete organization' }).click()
    await heading('Organizations').waitFor()
    expect((await api(`/admin/orgs/${org.id}`)).statusCode).toBe(404)
  })

  it('has no serious accessibility violation on the tiers and security events pages', async () => {
    await page.getByRole('link', { name: 'Tiers' }).click()
    await heading('Tiers and rate limits').waitFor()
    await page.getByRole('heading', { name: 'pro' }).waitFor()
    expect(await seriousViolations()).toEqual([])
    await page.getByRole('link', { name: 'Security events' }).click()
    await heading('Security events').waitFor()
    await page.getByRole('cell', { name: 'login succeeded' }).first().waitFor()
    expect(await seriousViolations()).toEqual([])
  })

  it('lists queued mail with its links on the Mail page', async () => {
    const reset = await t.app.inject({ method: 'POST', url: `${V2}/password-reset`, payload: { email: target.email } })
    expect(reset.statusCode).toBe(202)
    await page.getByRole('link', { name: 'Mail', exact: true }).click()
    await heading('Mail').waitFor()
    await page.getByRole('heading', { name: 'Reset your password' }).first().waitFor()
    await page.getByText(target.email).first().waitFor()
    expect(await page.getByRole('link', { name: /\/account\/reset-password\?token=/ }).count()).toBeGreaterThan(0)
    expect(await seriousViolations()).toEqual([])
  })

  it('previews a mail template in another language', async () => {
    await page.getByRole('link', { name: 'Mail templates', exact: true }).click()
    await heading('Mail templates').waitFor()
    await page.getByLabel('Mail').selectOption('new-device-sign-in')
    await page.getByLabel('Language').fill('de-AT')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.getByRole('heading', { name: 'Neue Anmeldung bei Ihrem Konto' }).waitFor()
    await page.getByText('(nearest to de-AT)').waitFor()
    expect(await page.frameLocator('iframe.mail-html').getByText('Das war ich nicht').count()).toBe(1)
    expect(await seriousViolations()).toEqual([])
  })

  it('registers a webhook, shows its secret once, sends a ping and lists its deliveries', async () => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click()
    await heading('Webhooks').waitFor()
    await page.getByLabel('URL').fill(receiver.url)
    await page.getByLabel('Description').fill('Billing')
    await page.getByRole('checkbox', { name: 'post.removed' }).uncheck()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const secret = (await page.locator('code.secret').textContent()) ?? ''
    expect(secret).toMatch(/^whsec_/)
    receiver.secrets = [secret]
    await page.getByRole('cell', { name: /Billing/ }).waitFor()
    await page.getByRole('button', { name: 'Send ping' }).click()
    await waitFor(() => receiver.received.length >= 1)
    expect(receiver.received[0]!.verifiedWith).toEqual([true])
    const [endpoint] = ((await api('/admin/webhooks')).json() as { data: { id: number; events: string[] }[] }).data
    expect(endpoint!.events).not.toContain('post.removed')
    await page.getByRole('link', { name: receiver.url }).click()
    await heading(`Deliveries to ${receiver.url}`).waitFor()
    await page.getByRole('cell', { name: 'ping' }).waitFor()
    await page.getByRole('button', { name: 'Redeliver' }).first().click()
    await waitFor(() => receiver.received.length >= 2)
    expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id)
    expect(await seriousViolations()).toEqual([])
  })

  it('fits a phone-width screen without sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    for (const view of ['#/', '#/users', `#/users/${target.id}`, '#/posts', '#/tiers', '#/events', '#/mail', '#/webhooks']) {
      await page.goto(`${base}/admin/${view}`)
      await page.locator('main h1').first().waitFor()
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
      expect(overflow, view).toBeLessThanOrEqual(0)
    }
  })

  it('raised no console error and no CSP violation on the way', () => {
    // The browser logs the answers the console expects: 401 from the refresh tried at first load
    // (no session yet), 403 for the refused sign-in, 409 for the taken username and 422 for the
    // custom field out of its range. Anything else, a CSP violation above all, fails.
    const expected = /^Failed to load resource: the server responded with a status of (40[139]|422)/
    expect(problems.filter((problem) => !expected.test(problem))).toEqual([])
  })
})
