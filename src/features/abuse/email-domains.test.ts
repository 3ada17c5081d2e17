// Address domains: disposable ones (mailchecker) refused at sign-up and email change with
// BLOCK_DISPOSABLE_EMAILS, by registrable domain (a subdomain or a punycode spelling is caught),
// the superusers' allow and deny lists over it, and one answer for every reason, given before
// anything says whether the address has an account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, seedUser, userFields, V1, V2 } from '../../../test/helpers/users.js'
import { registrableDomainOf } from './email-domains.js'

let t: TestApp
let superuser: LoggedIn
beforeAll(async () => {
  t = await createTestApp({ BLOCK_DISPOSABLE_EMAILS: 'true' })
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

const signUp = (email: string) => t.app.inject({ method: 'POST', url: `${V2}/signup`, payload: { ...userFields(), email, accept_terms: true } })
const blocked = (response: Awaited<ReturnType<typeof signUp>>) => expectError(response, 400, 'Addresses at this domain cannot be used', 'email_domain_blocked')

describe('address domains', () => {
  it('knows an address by its registrable domain, in ASCII', async () => {
    expect(await registrableDomainOf('someone@x.y.mailinator.com')).toBe('mailinator.com')
    expect(await registrableDomainOf('someone@MAIL.Example.co.uk')).toBe('example.co.uk')
    expect(await registrableDomainOf('someone@bücher.example')).toBe('xn--bcher-kva.example')
  })

  it('refuses a disposable address and its subdomains at sign-up, in both versions, and takes an ordinary one', async () => {
    blocked(await signUp('bot@mailinator.com'))
    blocked(await signUp('bot@x.mailinator.com'))
    blocked(await t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: { ...userFields(), email: 'bot@yopmail.com' } }))
    expect((await signUp(`${userFields().username}@example.com`)).statusCode).toBe(201)
    expect((await t.db.selectFrom('security_events').select('type').where('type', '=', 'email_domain_blocked').execute()).length).toBe(3)
  })

  it('refuses an email change to such an address', async () => {
    const someone = await seedAndLogin(t.app)
    blocked(await t.app.inject({ method: 'PATCH', url: `${V2}/users/${someone.user.id}`, headers: someone.headers, payload: { email: 'me@mailinator.com', current_password: someone.user.password } }))
  })

  it("gives the same answer whether or not the address has an account", async () => {
    const existing = await seedUser(t.app, { email: 'held@deny.example' })
    expect(existing.email).toBe('held@deny.example')
    await t.app.inject({ method: 'PUT', url: `${V2}/admin/email-domains/deny.example`, headers: superuser.headers, payload: { action: 'deny' } })
    const taken = await signUp('held@deny.example')
    const free = await signUp('free@deny.example')
    blocked(taken)
    blocked(free)
    expect(taken.body).toBe(free.body)
  })

  it("lets superusers allow a listed domain and deny any other, by registrable domain", async () => {
    const put = await t.app.inject({ method: 'PUT', url: `${V2}/admin/email-domains/mail.mailinator.com`, headers: superuser.headers, payload: { action: 'allow' } })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json()).toMatchObject({ domain: 'mailinator.com', action: 'allow' })
    expect((await signUp(`${userFields().username}@mailinator.com`)).statusCode).toBe(201)
    await t.app.inject({ method: 'PUT', url: `${V2}/admin/email-domains/spam.example`, headers: superuser.headers, payload: { action: 'deny' } })
    blocked(await signUp('someone@shop.spam.example'))
    const rules = (await t.app.inject({ url: `${V2}/admin/email-domains`, headers: superuser.headers })).json<{ domain: string; action: string }[]>()
    expect(rules.map((rule) => `${rule.domain} ${rule.action}`)).toEqual(expect.arrayContaining(['mailinator.com allow', 'spam.example deny']))
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/admin/email-domains/mailinator.com`, headers: superuser.headers })).statusCode).toBe(200)
    blocked(await signUp('again@mailinator.com'))
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/admin/email-domains/mailinator.com`, headers: superuser.headers }), 404, undefined, 'email_domain_rule_not_found')
  })

  it('keeps the lists to superusers', async () => {
    const someone = await seedAndLogin(t.app)
    expectError(await t.app.inject({ url: `${V2}/admin/email-domains`, headers: someone.headers }), 403)
    expectError(await t.app.inject({ method: 'PUT', url: `${V2}/admin/email-domains/example.org`, headers: someone.headers, payload: { action: 'deny' } }), 403)
  })
})
