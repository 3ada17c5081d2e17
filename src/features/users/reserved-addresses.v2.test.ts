// Reserved addresses (the `.invalid` top-level domain, which the service's own accounts use) are
// refused on every door that gives an account its address, found from the route table: every
// route whose body has an `email` is either one of those (and refuses each reserved spelling with
// 422 on `email`) or one that only looks an address up or writes to it. A route added next year
// with an `email` field fails here until it is classified. The configured superuser too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'
import { RESERVED_ADDRESS } from './reserved-addresses.js'

/** Well-formed addresses under the reserved domain, in any case; (the format itself refuses a bare `invalid` or a trailing dot). */
const RESERVED = ['deleted-user@users.invalid', 'Someone@Example.INVALID', 'a.b@deep.sub.invalid']

/** Routes whose `email` finds an account or receives mail, and never becomes an account's address. */
const LOOKUPS = ['POST /services/v1/password-reset', 'POST /api/v2/password-reset', 'POST /api/v2/login/email', 'POST /api/v2/login/email/confirm', 'POST /api/v2/orgs/:org/invitations']

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' })
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

/** A new user's fields as a form sends them. */
const formFields = () => {
  const { name, username, password } = userFields()
  return { name, username, password }
}

/** How each door that gives an account its address is called with `email`. */
const doors: Record<string, (email: string) => Promise<Awaited<ReturnType<TestApp['app']['inject']>>>> = {
  'POST /services/v1/users': (email) => t.app.inject({ method: 'POST', url: '/services/v1/users/', payload: { ...userFields(), email } }),
  'POST /api/v2/signup': (email) => t.app.inject({ method: 'POST', url: '/api/v2/signup', payload: { ...userFields(), email, accept_terms: true } }),
  'POST /api/v2/users': (email) => t.app.inject({ method: 'POST', url: '/api/v2/users/', headers: admin.headers, payload: { ...userFields(), email, accept_terms: true } }),
  'POST /account/signup': (email) => t.app.inject({ method: 'POST', url: '/account/signup', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ ...formFields(), email, accept_terms: 'on' }).toString() }),
  'PATCH /services/v1/users/:user_id': async (email) => {
    const who = await seedAndLogin(t.app)
    return t.app.inject({ method: 'PATCH', url: `/services/v1/users/${who.user.id}`, headers: who.headers, payload: { email, current_password: who.user.password } })
  },
  'PATCH /api/v2/users/:user_id': async (email) => {
    const who = await seedAndLogin(t.app)
    return t.app.inject({ method: 'PATCH', url: `/api/v2/users/${who.user.id}`, headers: who.headers, payload: { email, current_password: who.user.password } })
  },
}

describe('reserved addresses', () => {
  it('are refused on every route that gives an account its address, and every route with an email is classified', async () => {
    const withEmail = [...new Set(t.app.routeTable.filter((entry) => entry.bodyFields.includes('email')).map((entry) => `${entry.method} ${entry.url.replace(/\/$/, '')}`))]
    expect(withEmail.filter((route) => !LOOKUPS.includes(route) && !(route in doors))).toEqual([])
    const accepted: string[] = []
    for (const route of withEmail.filter((candidate) => candidate in doors)) {
      for (const email of RESERVED) {
        const answer = await doors[route]!(email)
        if (route === 'POST /account/signup') {
          expect(answer.statusCode, `${route} ${email}`).toBe(422)
          expect(answer.body).toContain(RESERVED_ADDRESS)
        } else {
          expectError(answer, 422, RESERVED_ADDRESS, 'validation_failed')
          expect(answer.json().errors).toEqual([expect.objectContaining({ loc: ['body', 'email'] })])
        }
      }
      if ((await doors[route]!(userFields().email)).statusCode >= 300) accepted.push(`${route} refused an ordinary address`)
    }
    expect(accepted).toEqual([])
    expect(await t.db.selectFrom('users').select('id').where('email', 'like', '%invalid%').execute()).toEqual([])
  })

  it('stop the configured superuser at start, naming ADMIN_EMAIL', async () => {
    const env = { ...t.env, ADMIN_EMAIL: 'boss@service.invalid', ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: 'violet sunrise 42' }
    await expect(buildApp({ config: loadConfig(env), secretKey: TEST_SECRET_KEY })).rejects.toThrow(`ADMIN_EMAIL: ${RESERVED_ADDRESS}`)
  })
})
