// Login CSRF: a form on another site must not log the visitor's browser in (to the attacker's
// account) nor replace its cookies. Browsers name the site a request comes from; such a login
// is refused before any credential is checked, while same-origin and same-site pages, the
// service's own pages and clients that are no browser keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { seedUser, V1, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let user: Awaited<ReturnType<typeof seedUser>>
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: 'https://accounts.example.com' })
  user = await seedUser(t.app)
})
afterAll(() => t.close())

const form = () => `username=${encodeURIComponent(user.username)}&password=${encodeURIComponent(user.password)}`
const login = (prefix: string, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: form(), headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'api.example.com', ...headers } })

describe.each([V1, V2])('POST /login (%s)', (prefix) => {
  it('refuses a form posted from another site, and sets no cookie', async () => {
    for (const headers of [
      { origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example.net' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
    ] as Record<string, string>[]) {
      const refused = await login(prefix, headers)
      expectError(refused, 403, 'Cross-site request refused', 'cross_site_refused')
      expect(refused.headers['set-cookie']).toBeUndefined()
    }
  })

  it('takes logins from this origin, from a page of the same site, from its own pages, and from clients that are no browser', async () => {
    for (const headers of [
      { origin: 'http://api.example.com', 'sec-fetch-site': 'same-origin' },
      { origin: 'https://app.example.com', 'sec-fetch-site': 'same-site' },
      { origin: 'https://accounts.example.com' },
      {},
    ] as Record<string, string>[]) {
      const response = await login(prefix, headers)
      expect(response.statusCode, `${JSON.stringify(headers)} ${response.body}`).toBe(200)
    }
  })
})
