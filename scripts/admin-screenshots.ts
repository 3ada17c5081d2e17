// `npm run admin:screenshots`: starts the service on a throwaway SQLite directory with demo data,
// signs in to the admin console in Debian's Chromium and writes screenshots of its main pages to
// docs/admin/. The demo's sign-ups and logins are spread over the week by backdating rows
// directly (the API has no way to write the past).
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { chromium } from 'playwright-core'

import { buildApp } from '../src/app.js'
import { openBackends } from '../src/backends.js'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'

const OUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'admin')
const PASSWORD = 'demo password for screenshots'
const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson', 'Frances Allen', 'John Backus', 'Radia Perlman', 'Dennis Ritchie', 'Katherine Johnson', 'Tony Hoare', 'Leslie Lamport', 'Niklaus Wirth']

const dataDir = await mkdtemp(path.join(tmpdir(), 'ups-screenshots-'))
const secretKey = 'screenshot-secret-key-that-is-long-enough-0000'
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, SECRET_KEY: secretKey, MAIL_TRANSPORT: 'log', LOGIN_RATE_LIMIT: '1000' })
const logger = createLogger('silent')
const backends = await openBackends(config, secretKey, logger, { prepare: true })
const app = await buildApp({ config, secretKey, logger, backends })
const { users, tiers, posts, rateLimits } = app.services
const { db } = backends.database

try {
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const admin = await users.create({ name: 'Site Operator', username: 'operator', email: 'operator@example.com', password: PASSWORD }, { superuser: true })
  const pro = await tiers.create(admin, 'pro')
  await tiers.create(admin, 'team')
  await rateLimits.create(admin, pro.id, { route: 'GET /api/v2/users/{user_id}', limit: 120, periodSeconds: 60 })
  await rateLimits.create(admin, pro.id, { route: '*', limit: 600, periodSeconds: 60 })
  const created = []
  for (const [index, name] of NAMES.entries()) {
    const username = name.toLowerCase().replace(/\W+/g, '_')
    const user = await users.create({ name, username, email: `${username}@example.com`, password: PASSWORD, age: 30 + index })
    created.push(user)
    if (index % 3 === 0) await users.setTier(admin, user.id, pro.id)
    await posts.create(user, { title: `Notes by ${name}`, text: `A first post by ${name}.` })
  }
  for (const user of created.slice(0, 10)) {
    const login = await app.inject({ method: 'POST', url: '/api/v2/login', payload: { username: user.username, password: PASSWORD }, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } })
    if (login.statusCode !== 200) throw new Error(`demo login failed: ${login.body}`)
  }
  await users.softDelete(admin, created[5]!.id)
  // Spread the demo over the week: the n-th user signed up (and logged in) n % 7 days ago.
  for (const [index, user] of created.entries()) {
    const when = new Date(Date.now() - (index % 7) * 86_400_000 - index * 60_000).toISOString()
    await db.updateTable('users').set({ created_at: when }).where('id', '=', user.id).execute()
    await db.updateTable('security_events').set({ created_at: when }).where('user_id', '=', user.id).execute()
  }

  await mkdir(OUT_DIR, { recursive: true })
  const browser = await chromium.launch({
    executablePath: process.env.TEST_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
  await page.goto(`${base}/admin/`)
  await page.getByLabel('Username or email').fill('operator')
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('heading', { name: 'Overview' }).waitFor()

  const shoot = async (view: string, file: string, ready: string) => {
    await page.goto(`${base}/admin/${view}`)
    await page.getByRole('heading', { level: 1, name: ready }).waitFor()
    await page.waitForLoadState('networkidle')
    // Sections load on their own: wait until none still says so.
    // (Polled from here: the page's CSP refuses the eval that waitForFunction would need.)
    while ((await page.getByText('Loading…').count()) > 0) await new Promise((resolve) => setTimeout(resolve, 100))
    await page.screenshot({ path: path.join(OUT_DIR, file), fullPage: true })
    console.log(`wrote docs/admin/${file}`)
  }
  await shoot('#/', 'overview.png', 'Overview')
  await shoot('#/users?sort=-id', 'users.png', 'Users')
  await shoot(`#/users/${created[1]!.id}`, 'user.png', created[1]!.username)
  await shoot('#/posts', 'posts.png', 'Posts')
  await shoot('#/tiers', 'tiers.png', 'Tiers and rate limits')
  await shoot('#/events', 'security-events.png', 'Security events')
  await page.setViewportSize({ width: 390, height: 844 })
  await shoot('#/users', 'users-phone.png', 'Users')
  await browser.close()
} finally {
  await app.close()
  await rm(dataDir, { recursive: true, force: true })
}
