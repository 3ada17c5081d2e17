// Organizations over HTTP, on each database: creating and finding them, roles and the last owner
// (also under concurrent demotions), invitations through a real SMTP server (the wrong account
// refused, a replaced or expired link dead, two accepts at once making one membership), the
// second-factor rule, superusers, the organization's own log, and a role change honoured by
// another process on its next request.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { multipart } from '../../../test/helpers/multipart.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import { openStream } from '../../../test/helpers/sse.js'
import { enrolTotp } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'

let t: TestApp
let smtp: TestSmtpServer
let close: () => Promise<void>

beforeAll(async () => {
  ;({ t, smtp, close } = await createAppWithSmtp({ ORGS_PER_USER: '3', INVITATION_RATE_LIMIT: '1000/3600' }))
})
afterAll(() => close())

const request = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who?: { headers: Record<string, string> }, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newOrg(owner: LoggedIn, name = 'Acme', slug?: string): Promise<{ id: number; slug: string }> {
  const response = await request('POST', '/orgs', owner, { name, ...(slug ? { slug } : {}) })
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}

/** Invites `invitee`'s email and returns the token of the mail that arrived. */
async function invite(org: { id: number }, by: LoggedIn, email: string, role = 'member'): Promise<{ id: number; token: string }> {
  const to = email.toLowerCase()
  const before = smtp.messages.filter((message) => message.to === to).length
  const response = await request('POST', `/orgs/${org.id}/invitations`, by, { email, role })
  expect(response.statusCode, response.body).toBe(201)
  const mails = await smtp.waitFor(to, before + 1)
  return { id: response.json().id, token: tokenIn(mails.at(-1)!) }
}

/** A team: an owner, an admin and a member, through invitations. */
async function team(): Promise<{ org: { id: number; slug: string }; owner: LoggedIn; admin: LoggedIn; member: LoggedIn }> {
  const owner = await seedAndLogin(t.app, {}, { verified: true })
  const admin = await seedAndLogin(t.app, {}, { verified: true })
  const member = await seedAndLogin(t.app, {}, { verified: true })
  const org = await newOrg(owner, `Team ${owner.user.id}`)
  for (const [who, role] of [[admin, 'admin'], [member, 'member']] as const) {
    const { token } = await invite(org, owner, who.user.email, role)
    const accepted = await request('POST', '/invitations/accept', who, { token })
    expect(accepted.statusCode, accepted.body).toBe(200)
  }
  return { org, owner, admin, member }
}

describe('organizations', () => {
  it('makes its creator the owner, finds it by id and by slug, and lists the caller’s', async () => {
    const owner = await seedAndLogin(t.app)
    const created = await request('POST', '/orgs', owner, { name: 'Ünïcode Works!' })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json()).toMatchObject({ name: 'Ünïcode Works!', slug: 'unicode-works', role: 'owner', require_mfa: false })
    const { id } = created.json()
    expect((await request('GET', `/orgs/${id}`, owner)).json()).toMatchObject({ id, role: 'owner' })
    expect((await request('GET', '/orgs/unicode-works', owner)).json()).toMatchObject({ id })
    const mine = await request('GET', '/orgs', owner)
    expect(mine.json()).toMatchObject({ total_count: 1, has_more: false, data: [{ id, role: 'owner' }] })
  })

  it('makes a free slug from the name, refuses a taken one, and keeps slugs from reading as ids', async () => {
    const owner = await seedAndLogin(t.app)
    const first = await newOrg(owner, 'Slug Test')
    const second = await newOrg(owner, 'Slug Test')
    expect(first.slug).toBe('slug-test')
    expect(second.slug).toBe('slug-test-2')
    const other = await seedAndLogin(t.app)
    expectError(await request('POST', '/orgs', other, { name: 'Mine', slug: 'slug-test' }), 409, 'Slug already taken', 'slug_taken')
    expect((await request('POST', '/orgs', other, { name: 'Digits', slug: '12345' })).statusCode).toBe(422)
    expect((await request('POST', '/orgs', other, { name: 'Caps', slug: 'Not-A-Slug' })).statusCode).toBe(422)
    expectError(await request('PATCH', `/orgs/${second.slug}`, owner, { slug: 'slug-test' }), 409, 'Slug already taken', 'slug_taken')
  })

  it('lets a user own at most ORGS_PER_USER organizations, also when they create several at once', async () => {
    const owner = await seedAndLogin(t.app)
    for (let n = 0; n < 2; n++) await newOrg(owner, `Limit ${n}`)
    const answers = await Promise.all([1, 2, 3].map((n) => request('POST', '/orgs', owner, { name: `At once ${n}` })))
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 403, 403])
    expectError(await request('POST', '/orgs', owner, { name: 'One too many' }), 403, /ORGS_PER_USER/, 'org_limit')
  })

  it('answers 404 to a non-member, by id and by slug, and 403 to a role below the route’s', async () => {
    const { org, member } = await team()
    const outsider = await seedAndLogin(t.app)
    expectError(await request('GET', `/orgs/${org.id}`, outsider), 404, 'Organization not found', 'org_not_found')
    expectError(await request('GET', `/orgs/${org.slug}`, outsider), 404, 'Organization not found', 'org_not_found')
    expectError(await request('GET', '/orgs/no-such-org', outsider), 404, 'Organization not found', 'org_not_found')
    expectError(await request('GET', '/orgs/99999999999', outsider), 404, 'Organization not found', 'org_not_found')
    expectError(await request('GET', '/orgs/2147483648', outsider), 404, 'Organization not found', 'org_not_found')
    const refused = await request('PATCH', `/orgs/${org.id}`, member, { name: 'Mine now' })
    expectError(refused, 403, 'Needs the admin role in this organization', 'org_role_required')
    expectError(await request('DELETE', `/orgs/${org.id}`, member), 403, undefined, 'org_role_required')
  })

  it('lets admins rename it and owners delete it, with its memberships and invitations', async () => {
    const { org, owner, admin, member } = await team()
    const renamed = await request('PATCH', `/orgs/${org.id}`, admin, { name: 'Renamed' })
    expect(renamed.json()).toMatchObject({ name: 'Renamed', role: 'admin' })
    await invite(org, owner, `pending-${org.id}@example.com`)
    expectError(await request('DELETE', `/orgs/${org.id}`, admin), 403, undefined, 'org_role_required')
    expect((await request('DELETE', `/orgs/${org.id}`, owner)).statusCode).toBe(200)
    expectError(await request('GET', `/orgs/${org.id}`, member), 404, undefined, 'org_not_found')
    const left = await sql<{ count: number | string }>`select count(*) as count from org_memberships where org_id = ${org.id}`.execute(t.db)
    expect(Number(left.rows[0]?.count)).toBe(0)
  })
})

describe('members and roles', () => {
  it('lists members with emails for admins, and only one’s own for members', async () => {
    const { org, owner, admin, member } = await team()
    const asAdmin = (await request('GET', `/orgs/${org.id}/members`, admin)).json()
    expect(asAdmin.total_count).toBe(3)
    expect(asAdmin.data.map((row: { role: string }) => row.role)).toEqual(['owner', 'admin', 'member'])
    expect(asAdmin.data.every((row: { email?: string }) => typeof row.email === 'string')).toBe(true)
    // Counted with the page, and apart past the last one.
    expect((await request('GET', `/orgs/${org.id}/members?limit=2&page=2`, admin)).json()).toMatchObject({ total_count: 3, has_more: false, data: [{ role: 'member' }] })
    expect((await request('GET', `/orgs/${org.id}/members?limit=2&page=9`, admin)).json()).toMatchObject({ total_count: 3, has_more: false, data: [] })
    const asMember = (await request('GET', `/orgs/${org.id}/members`, member)).json()
    const emails = asMember.data.filter((row: { email?: string }) => row.email !== undefined).map((row: { user_id: number }) => row.user_id)
    expect(emails).toEqual([member.user.id])
    expect(owner.user.id).toBe(asMember.data[0].user_id)
  })

  it('lets admins change members and admins, and only owners grant or take the owner role', async () => {
    const { org, owner, admin, member } = await team()
    expect((await request('PATCH', `/orgs/${org.id}/members/${member.user.id}`, admin, { role: 'admin' })).json()).toEqual({ user_id: member.user.id, role: 'admin' })
    expectError(await request('PATCH', `/orgs/${org.id}/members/${member.user.id}`, admin, { role: 'owner' }), 403, 'Needs the owner role in this organization', 'org_role_required')
    expectError(await request('PATCH', `/orgs/${org.id}/members/${owner.user.id}`, admin, { role: 'member' }), 403, undefined, 'org_role_required')
    expect((await request('PATCH', `/orgs/${org.id}/members/${member.user.id}`, owner, { role: 'owner' })).statusCode).toBe(200)
    expectError(await request('PATCH', `/orgs/${org.id}/members/999999`, owner, { role: 'member' }), 404, 'Member not found', 'member_not_found')
  })

  it('keeps the last owner: neither demoted nor leaving nor removed', async () => {
    const { org, owner, admin } = await team()
    expectError(await request('PATCH', `/orgs/${org.id}/members/${owner.user.id}`, owner, { role: 'admin' }), 409, undefined, 'last_owner')
    expectError(await request('DELETE', `/orgs/${org.id}/members/${owner.user.id}`, owner), 409, undefined, 'last_owner')
    expect((await request('PATCH', `/orgs/${org.id}/members/${admin.user.id}`, owner, { role: 'owner' })).statusCode).toBe(200)
    expect((await request('DELETE', `/orgs/${org.id}/members/${owner.user.id}`, owner)).json()).toEqual({ message: 'You left the organization' })
    expectError(await request('GET', `/orgs/${org.id}`, owner), 404, undefined, 'org_not_found')
  })

  it('counts only live owners: a soft-deleted owner leaves the other the last one', async () => {
    const { org, owner, admin } = await team()
    expect((await request('PATCH', `/orgs/${org.id}/members/${admin.user.id}`, owner, { role: 'owner' })).statusCode).toBe(200)
    expect((await request('DELETE', `/users/${admin.user.id}`, admin)).statusCode).toBe(200)
    expectError(await request('DELETE', `/orgs/${org.id}/members/${owner.user.id}`, owner), 409, undefined, 'last_owner')
  })

  it('refuses to remove for good the only owner of an organization, until another member is one', async () => {
    const { org, owner, admin } = await team()
    const superuser = await seedAndLogin(t.app, {}, { superuser: true })
    expectError(await request('DELETE', `/users/${owner.user.id}/permanent`, superuser), 409, new RegExp(`last owner of Team ${owner.user.id}`), 'last_owner')
    expect((await request('GET', `/orgs/${org.id}`, owner)).statusCode).toBe(200)
    expect((await request('PATCH', `/orgs/${org.id}/members/${admin.user.id}`, owner, { role: 'owner' })).statusCode).toBe(200)
    expect((await request('DELETE', `/users/${owner.user.id}/permanent`, superuser)).statusCode).toBe(200)
    expect((await request('GET', `/orgs/${org.id}/members`, admin)).json().data.map((row: { role: string }) => row.role)).toEqual(['owner', 'member'])
  })

  it('keeps one owner when two owners demote each other at once', async () => {
    for (let round = 0; round < 3; round++) {
      const { org, owner, admin } = await team()
      expect((await request('PATCH', `/orgs/${org.id}/members/${admin.user.id}`, owner, { role: 'owner' })).statusCode).toBe(200)
      const answers = await Promise.all([
        request('PATCH', `/orgs/${org.id}/members/${owner.user.id}`, admin, { role: 'member' }),
        request('PATCH', `/orgs/${org.id}/members/${admin.user.id}`, owner, { role: 'member' }),
      ])
      const statuses = answers.map((answer) => answer.statusCode).sort()
      // One demotion wins; the other either finds no owner left to spare (409) or that its caller is no longer an owner (403).
      expect(statuses[0], answers.map((answer) => answer.body).join(' | ')).toBe(200)
      expect([403, 409]).toContain(statuses[1])
      const owners = await sql<{ count: number | string }>`select count(*) as count from org_memberships where org_id = ${org.id} and role = 'owner'`.execute(t.db)
      expect(Number(owners.rows[0]?.count)).toBe(1)
    }
  })

  it('lets admins remove members, and anyone leave', async () => {
    const { org, owner, admin, member } = await team()
    expectError(await request('DELETE', `/orgs/${org.id}/members/${admin.user.id}`, member), 403, undefined, 'org_role_required')
    expectError(await request('DELETE', `/orgs/${org.id}/members/${owner.user.id}`, admin), 403, undefined, 'org_role_required')
    expect((await request('DELETE', `/orgs/${org.id}/members/${member.user.id}`, admin)).json()).toEqual({ message: 'Member removed' })
    expectError(await request('GET', `/orgs/${org.id}`, member), 404, undefined, 'org_not_found')
    expect((await request('DELETE', `/orgs/${org.id}/members/${admin.user.id}`, admin)).statusCode).toBe(200)
  })

  it('takes a removal into account on the next request of another process', async () => {
    const { org, owner, member } = await team()
    const second = await createTestApp(() => t.env)
    try {
      const read = () => second.app.inject({ url: `${V2}/orgs/${org.id}`, headers: member.headers })
      expect((await read()).statusCode).toBe(200)
      expect((await request('PATCH', `/orgs/${org.id}/members/${member.user.id}`, owner, { role: 'admin' })).statusCode).toBe(200)
      expect((await read()).json().role).toBe('admin')
      expect((await request('DELETE', `/orgs/${org.id}/members/${member.user.id}`, owner)).statusCode).toBe(200)
      expectError(await read(), 404, undefined, 'org_not_found')
    } finally {
      await second.app.close()
    }
  })
})

describe('invitations', () => {
  it('are accepted only by the account whose verified email they were sent to, and stay pending otherwise', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Invites')
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const someoneElse = await seedAndLogin(t.app, {}, { verified: true })
    const { token } = await invite(org, owner, invitee.user.email.toUpperCase())
    expectError(await request('POST', '/invitations/accept', someoneElse, { token }), 403, undefined, 'invitation_email_mismatch')
    const listed = (await request('GET', '/users/me/invitations', invitee)).json()
    expect(listed.data).toMatchObject([{ org: { id: org.id, name: 'Invites' }, role: 'member', email: invitee.user.email.toLowerCase() }])
    expect((await request('GET', '/users/me/invitations', someoneElse)).json().total_count).toBe(0)
    const accepted = await request('POST', '/invitations/accept', invitee, { token })
    expect(accepted.statusCode, accepted.body).toBe(200)
    expect(accepted.json()).toMatchObject({ id: org.id, role: 'member' })
    expectError(await request('POST', '/invitations/accept', invitee, { token }), 400, undefined, 'invalid_token')
    expect((await request('GET', '/users/me/invitations', invitee)).json().total_count).toBe(0)
  })

  it('join someone who signs up from the link once their address is verified, and list nothing to an unverified one', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Newcomers')
    const fields = userFields()
    const { token } = await invite(org, owner, fields.email)
    const newcomer = await seedAndLogin(t.app, fields, { verified: false })
    expect((await request('GET', '/users/me/invitations', newcomer)).json().total_count).toBe(0)
    const claimed = await request('POST', '/invitations/accept', newcomer, { token })
    expect(claimed.statusCode, claimed.body).toBe(202)
    expectError(await request('GET', `/orgs/${org.id}`, newcomer), 404, undefined, 'org_not_found')
    // Someone else who opens the link is refused, and takes nothing from the newcomer.
    expectError(await request('POST', '/invitations/accept', await seedAndLogin(t.app, {}, { verified: true }), { token }), 403, undefined, 'invitation_email_mismatch')
    await t.app.services.users.markEmailVerified(newcomer.user.id, newcomer.user.email)
    expect((await request('GET', `/orgs/${org.id}`, newcomer)).json()).toMatchObject({ id: org.id, role: 'member' })
    expectError(await request('POST', '/invitations/accept', newcomer, { token }), 400, undefined, 'invalid_token')
  })

  it('refuse an account that held the address before the invitation, unverified (403), and keep the invitation pending for its owner', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Older accounts')
    const holder = await seedAndLogin(t.app, {}, { verified: false })
    const { token } = await invite(org, owner, holder.user.email)
    expectError(await request('POST', '/invitations/accept', holder, { token }), 403, 'This invitation was sent to another email address', 'invitation_email_mismatch')
    // Nothing was claimed: verifying the address later joins nothing on its own.
    await t.app.services.users.markEmailVerified(holder.user.id, holder.user.email)
    expectError(await request('GET', `/orgs/${org.id}`, holder), 404, undefined, 'org_not_found')
    expect((await request('GET', `/orgs/${org.id}/invitations`, owner)).json().data).toMatchObject([{ email: holder.user.email.toLowerCase() }])
    // Once the address is proven, the same link works.
    expect((await request('POST', '/invitations/accept', holder, { token })).statusCode).toBe(200)
  })

  it("open the service's own page by default, which shows the invitation and spends nothing", async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Page <Test>')
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const before = smtp.messages.filter((message) => message.to === invitee.user.email).length
    await request('POST', `/orgs/${org.id}/invitations`, owner, { email: invitee.user.email, role: 'admin' })
    const mail = (await smtp.waitFor(invitee.user.email, before + 1)).at(-1)!
    const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0])
    expect(link.pathname).toBe('/account/invitation')
    const shown = await t.app.inject({ url: `${link.pathname}${link.search}` })
    expect(shown.statusCode).toBe(200)
    expect(shown.body).toContain('Page &lt;Test&gt;')
    expect(shown.body).not.toContain('Page <Test>')
    expect((await request('POST', '/invitations/accept', invitee, { token: tokenIn(mail) })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${link.pathname}${link.search}` })).statusCode).toBe(400)
  })

  it("offer on the service's page a link to verify the invited address, which lets someone who signed up from the link join", async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Verify first')
    const fields = userFields()
    const { token } = await invite(org, owner, fields.email)
    const page = await t.app.inject({ url: `/account/invitation?token=${encodeURIComponent(token)}` })
    expect(page.body).toContain('<form method="post" action="/account/invitation/verification">')
    // Before there is an account: the same answer, and no mail.
    const before = smtp.messages.filter((message) => message.to === fields.email.toLowerCase()).length
    const early = await t.app.inject({ method: 'POST', url: '/account/invitation/verification', payload: { token } })
    expect(early.statusCode).toBe(200)
    const newcomer = await seedAndLogin(t.app, fields, { verified: false })
    expect((await request('POST', '/invitations/accept', newcomer, { token })).statusCode).toBe(202)
    const asked = await t.app.inject({ method: 'POST', url: '/account/invitation/verification', payload: { token } })
    expect(asked.body).toBe(early.body)
    const [verification] = (await smtp.waitFor(fields.email.toLowerCase(), before + 1)).slice(before)
    expect(verification!.subject).toBe('Confirm your email address')
    const confirmed = await t.app.inject({ method: 'POST', url: '/account/verify-email', payload: { token: tokenIn(verification!) } })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    expect((await request('GET', `/orgs/${org.id}`, newcomer)).json()).toMatchObject({ id: org.id, role: 'member' })
  })

  it('replace an earlier invitation to the same address, whose link then dies', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Replaced')
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const first = await invite(org, owner, invitee.user.email)
    const second = await invite(org, owner, invitee.user.email, 'admin')
    expect((await request('GET', `/orgs/${org.id}/invitations`, owner)).json()).toMatchObject({ total_count: 1, data: [{ id: second.id, role: 'admin' }] })
    expectError(await request('POST', '/invitations/accept', invitee, { token: first.token }), 400, undefined, 'invalid_token')
    expect((await request('POST', '/invitations/accept', invitee, { token: second.token })).json().role).toBe('admin')
  })

  it('die when they expire, and when they are revoked', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Expiring')
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const expiring = await invite(org, owner, invitee.user.email)
    const past = new Date(Date.now() - 1000).toISOString()
    await t.db.updateTable('org_invitations').set({ expires_at: past }).where('id', '=', expiring.id).execute()
    await t.db.updateTable('one_time_secrets').set({ expires_at: past }).where('purpose', '=', 'org_invitation').execute()
    expectError(await request('POST', '/invitations/accept', invitee, { token: expiring.token }), 400, undefined, 'invalid_token')
    expectError(await request('POST', `/invitations/${expiring.id}/accept`, invitee), 404, undefined, 'invitation_not_found')
    const revoked = await invite(org, owner, invitee.user.email)
    expect((await request('DELETE', `/orgs/${org.id}/invitations/${revoked.id}`, owner)).statusCode).toBe(200)
    expectError(await request('POST', '/invitations/accept', invitee, { token: revoked.token }), 400, undefined, 'invalid_token')
    expectError(await request('DELETE', `/orgs/${org.id}/invitations/${revoked.id}`, owner), 404, undefined, 'invitation_not_found')
  })

  it('make one membership of two accepts at once', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const org = await newOrg(owner, 'Race')
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const { id, token } = await invite(org, owner, invitee.user.email)
    const answers = await Promise.all([request('POST', '/invitations/accept', invitee, { token }), request('POST', `/invitations/${id}/accept`, invitee), request('POST', '/invitations/accept', invitee, { token })])
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1)
    const members = await sql<{ count: number | string }>`select count(*) as count from org_memberships where org_id = ${org.id} and user_id = ${invitee.user.id}`.execute(t.db)
    expect(Number(members.rows[0]?.count)).toBe(1)
  })

  it('can be declined, and are refused to an address already a member’s', async () => {
    const { org, owner, member } = await team()
    const invitee = await seedAndLogin(t.app, {}, { verified: true })
    const { id, token } = await invite(org, owner, invitee.user.email)
    expectError(await request('POST', `/invitations/${id}/decline`, member), 403, undefined, 'invitation_email_mismatch')
    expect((await request('POST', `/invitations/${id}/decline`, invitee)).statusCode).toBe(200)
    expectError(await request('POST', '/invitations/accept', invitee, { token }), 400, undefined, 'invalid_token')
    expectError(await request('POST', `/orgs/${org.id}/invitations`, owner, { email: member.user.email, role: 'member' }), 409, undefined, 'already_member')
  })

  it('only owners invite owners, and members do not invite at all', async () => {
    const { org, admin, member } = await team()
    expectError(await request('POST', `/orgs/${org.id}/invitations`, admin, { email: 'new-owner@example.com', role: 'owner' }), 403, undefined, 'org_role_required')
    expectError(await request('POST', `/orgs/${org.id}/invitations`, member, { email: 'friend@example.com', role: 'member' }), 403, undefined, 'org_role_required')
  })

  it('are limited per organization and per inviter (INVITATION_RATE_LIMIT)', async () => {
    const limited = await createTestApp({ INVITATION_RATE_LIMIT: '2/3600' })
    try {
      const [owner, other] = [await seedAndLogin(limited.app), await seedAndLogin(limited.app)]
      const create = async (who: LoggedIn, name: string) => (await limited.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: who.headers, payload: { name } })).json() as { id: number }
      const [first, second, others] = [await create(owner, 'Limited'), await create(owner, 'Limited too'), await create(other, 'Elsewhere')]
      let n = 0
      const send = (who: LoggedIn, org: { id: number }) =>
        limited.app.inject({ method: 'POST', url: `${V2}/orgs/${org.id}/invitations`, headers: who.headers, payload: { email: `limited-${(n += 1)}@example.com`, role: 'member' } })
      expect((await send(owner, first)).statusCode).toBe(201)
      expect((await send(owner, first)).statusCode).toBe(201)
      // The inviter's budget is spent, in another organization too.
      expectError(await send(owner, second), 429, undefined, 'rate_limited')
      // The organization's budget is spent, whoever invites.
      await limited.db.insertInto('org_memberships').values({ org_id: first.id, user_id: other.user.id, role: 'admin', created_at: new Date().toISOString() }).execute()
      expectError(await send(other, first), 429, undefined, 'rate_limited')
      expect((await send(other, others)).statusCode).toBe(201)
    } finally {
      await limited.close()
    }
  })
})

describe('the second-factor rule', () => {
  it('is set only by someone with a second factor, and then refuses members without one (who may still leave)', async () => {
    const { org, owner, member } = await team()
    expectError(await request('PATCH', `/orgs/${org.id}`, owner, { require_mfa: true }), 403, 'Set up a second factor before requiring one of every member', 'mfa_enrolment_required')
    await enrolTotp(t.app, owner.headers)
    expect((await request('PATCH', `/orgs/${org.id}`, owner, { require_mfa: true })).json().require_mfa).toBe(true)
    expectError(await request('GET', `/orgs/${org.id}`, member), 403, /second factor/, 'mfa_enrolment_required')
    // Their own account is theirs still.
    expect((await request('GET', '/users/me', member)).statusCode).toBe(200)
    expect((await request('GET', `/orgs/${org.id}`, owner)).statusCode).toBe(200)
    expect((await request('DELETE', `/orgs/${org.id}/members/${member.user.id}`, member)).statusCode).toBe(200)
  })

  it('tells a member who turns off their last second factor that the organization will refuse them', async () => {
    const { org, owner } = await team()
    const { recoveryCodes } = await enrolTotp(t.app, owner.headers)
    expect((await request('PATCH', `/orgs/${org.id}`, owner, { require_mfa: true })).statusCode).toBe(200)
    const off = await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/mfa/totp`, headers: owner.headers, payload: { code: recoveryCodes[0] } })
    expect(off.statusCode, off.body).toBe(200)
    expect(off.json().message).toBe(`Second factor turned off. Team ${owner.user.id} requires a second factor of members: you are refused there until you set one up again`)
    expectError(await request('GET', `/orgs/${org.id}`, owner), 403, undefined, 'mfa_enrolment_required')
  })
})

describe("the second-factor rule on every path to the organization's posts", () => {
  const base = async () => (t.app.server.listening ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}` : await t.app.listen({ host: '127.0.0.1', port: 0 }))
  const heardPosts = (stream: Awaited<ReturnType<typeof openStream>>) =>
    stream.events().filter((frame) => frame.event?.startsWith('post.')).map((frame) => (JSON.parse(frame.data ?? '{}') as { data: { id: number } }).data.id)
  /** Whether the stream heard the post written in `org` by the time it heard a public one written after it (events come in order). */
  const heardOrgPost = async (stream: Awaited<ReturnType<typeof openStream>>, author: LoggedIn, org: { id: number }, title: string) => {
    const orgPost = await writePost(author, org, title)
    const marker = (await request('POST', '/posts', author, { title: `after ${title}`, text: 'for all' })).json().id as number
    await waitFor(() => heardPosts(stream).includes(marker))
    return heardPosts(stream).includes(orgPost)
  }
  const writePost = async (author: LoggedIn, org: { id: number }, title: string, attachments: number[] = []) => {
    const created = await request('POST', '/posts', author, { title, text: 'For members', visibility: 'org', org_id: org.id, attachments })
    expect(created.statusCode, created.body).toBe(201)
    return created.json().id as number
  }

  it('gives a member without a second factor none of its grants: no post, file, list, search or stream', async () => {
    const { org, owner, member } = await team()
    await enrolTotp(t.app, owner.headers)
    const form = multipart([{ field: 'file', filename: 'notes.txt', contentType: 'text/plain', data: Buffer.from('members only') }])
    const file = (await t.app.inject({ method: 'POST', url: `${V2}/files`, payload: form.payload, headers: { ...form.headers, ...owner.headers } })).json().id as number
    const postId = await writePost(owner, org, `mfa rule ${org.id}`, [file])
    const memberStream = await openStream(`${(await base())}${V2}/events/stream`, member.headers)
    try {
      expect((await request('GET', `/posts/${postId}`, member)).statusCode).toBe(200)
      expect((await request('PATCH', `/orgs/${org.id}`, owner, { require_mfa: true })).statusCode).toBe(200)
      const paths = {
        get: await request('GET', `/posts/${postId}`, member),
        v1: await t.app.inject({ url: `/services/v1/posts/${postId}`, headers: member.headers }),
        file: await request('GET', `/files/${file}`, member),
        permissions: await request('GET', `/posts/${postId}/permissions`, member),
      }
      for (const [path, answer] of Object.entries(paths)) expect(answer.statusCode, path).toBe(404)
      expect((await request('GET', `/posts?search=${encodeURIComponent(`mfa rule ${org.id}`)}`, member)).json().total_count).toBe(0)
      expect((await request('GET', `/posts?author_id=${owner.user.id}`, member)).json().data.map((post: { id: number }) => post.id)).not.toContain(postId)
      expect((await t.app.inject({ url: `/services/v1/posts/?author_id=${owner.user.id}`, headers: member.headers })).json().map((post: { id: number }) => post.id)).not.toContain(postId)
      expectError(await request('POST', '/posts', member, { title: 'Mine', text: 'x', visibility: 'org', org_id: org.id }), 403, undefined, 'not_a_member')
      // The open stream follows the rule from the organization's own event on.
      expect(await heardOrgPost(memberStream, owner, org, 'while the rule holds')).toBe(false)
      // A stream opened now holds no grant either.
      const fresh = await openStream(`${(await base())}${V2}/events/stream`, member.headers)
      try {
        expect(await heardOrgPost(fresh, owner, org, 'later still')).toBe(false)
      } finally {
        fresh.close()
      }
      // With a second factor, every grant is theirs again.
      await enrolTotp(t.app, member.headers)
      expect((await request('GET', `/posts/${postId}`, member)).statusCode).toBe(200)
      expect((await request('GET', `/files/${file}`, member)).statusCode).toBe(200)
      const enrolled = await openStream(`${(await base())}${V2}/events/stream`, member.headers)
      try {
        expect(await heardOrgPost(enrolled, owner, org, 'for the enrolled')).toBe(true)
      } finally {
        enrolled.close()
      }
    } finally {
      memberStream.close()
    }
  })

  it('holds for someone who joins on a stream without a second factor', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    await enrolTotp(t.app, owner.headers)
    const org = await newOrg(owner, `Strict ${owner.user.id}`)
    expect((await request('PATCH', `/orgs/${org.id}`, owner, { require_mfa: true })).statusCode).toBe(200)
    const joiner = await seedAndLogin(t.app, {}, { verified: true })
    const stream = await openStream(`${(await base())}${V2}/events/stream`, joiner.headers)
    try {
      const { token } = await invite(org, owner, joiner.user.email)
      expect((await request('POST', '/invitations/accept', joiner, { token })).statusCode).toBe(200)
      await waitFor(() => stream.events().some((frame) => frame.event === 'membership.added'))
      expect(await heardOrgPost(stream, owner, org, 'not for the unenrolled')).toBe(false)
    } finally {
      stream.close()
    }
  })
})

describe('superusers, keys and the organization’s log', () => {
  it('let superusers act as owners on any organization, and list and delete them', async () => {
    const { org } = await team()
    const superuser = await seedAndLogin(t.app, {}, { superuser: true })
    expect((await request('GET', `/orgs/${org.id}`, superuser)).json()).toMatchObject({ id: org.id, role: null })
    const listed = (await request('GET', '/admin/orgs?limit=100', superuser)).json()
    expect(listed.data.map((row: { id: number }) => row.id)).toContain(org.id)
    expect((await request('GET', `/admin/orgs/${org.id}`, superuser)).json().id).toBe(org.id)
    expect((await request('DELETE', `/admin/orgs/${org.id}`, superuser)).statusCode).toBe(200)
    expectError(await request('GET', `/admin/orgs/${org.id}`, superuser), 404, undefined, 'org_not_found')
  })

  it('let an API key read as its owner, never change', async () => {
    const { org, member } = await team()
    const key = (await request('POST', '/api-keys/', member, { name: 'org reader', scopes: ['read', 'write'] })).json().key as string
    const asKey = { headers: { 'x-api-key': key } }
    expect((await request('GET', `/orgs/${org.id}/members`, asKey)).statusCode).toBe(200)
    expectError(await request('DELETE', `/orgs/${org.id}/members/${member.user.id}`, asKey), 403, undefined, 'api_key_not_allowed')
    expectError(await request('POST', '/orgs', asKey, { name: 'By key' }), 403, undefined, 'api_key_not_allowed')
  })

  it('keep the organization’s own log for its admins', async () => {
    const { org, owner, admin, member } = await team()
    await request('PATCH', `/orgs/${org.id}/members/${member.user.id}`, owner, { role: 'admin' })
    const log = (await request('GET', `/orgs/${org.id}/security-events?limit=100`, owner)).json()
    const types = log.data.map((event: { type: string }) => event.type)
    expect(types).toEqual(expect.arrayContaining(['org_created', 'invitation_sent', 'invitation_accepted', 'member_role_changed']))
    // Each join is recorded as such, the creator's and the invited member's, with the role.
    const added = log.data.filter((event: { type: string }) => event.type === 'member_added')
    expect(added.map((event: { user_id: number; details: { role: string } }) => [event.user_id, event.details.role]).sort()).toEqual([[admin.user.id, 'admin'], [member.user.id, 'member'], [owner.user.id, 'owner']].sort())
    const outsider = await seedAndLogin(t.app)
    expectError(await request('GET', `/orgs/${org.id}/security-events`, outsider), 404, undefined, 'org_not_found')
  })
})

describe('change events', () => {
  it("reach the organization's members on the stream, and stop with a removal", async () => {
    const { org, owner, member } = await team()
    const outsider = await seedAndLogin(t.app)
    const base = t.app.server.listening ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}` : await t.app.listen({ host: '127.0.0.1', port: 0 })
    const streams = await Promise.all([member, outsider].map((who) => openStream(`${base}${V2}/events/stream`, who.headers)))
    const [theirs, outside] = streams as [Awaited<ReturnType<typeof openStream>>, Awaited<ReturnType<typeof openStream>>]
    const heard = (stream: typeof theirs) => stream.events().map((frame) => `${frame.event}:${JSON.parse(frame.data ?? '{}').data?.name ?? JSON.parse(frame.data ?? '{}').data?.user_id ?? ''}`)
    try {
      await request('PATCH', `/orgs/${org.id}`, owner, { name: 'Heard' })
      await request('DELETE', `/orgs/${org.id}/members/${member.user.id}`, owner)
      await request('PATCH', `/orgs/${org.id}`, owner, { name: 'Unheard' })
      // A public post after the changes: once it arrived, every event before it has.
      const marker = (await request('POST', '/posts', owner, { title: 'Marker', text: 'last' })).json() as { id: number }
      const heardMarker = (stream: typeof theirs) => stream.events().some((frame) => frame.event === 'post.created' && JSON.parse(frame.data ?? '{}').data?.id === marker.id)
      await waitFor(() => heardMarker(theirs) && heardMarker(outside))
      expect(heard(theirs).filter((event) => !event.startsWith('post.'))).toEqual(['org.updated:Heard', `membership.removed:${member.user.id}`])
      expect(heard(outside).filter((event) => !event.startsWith('post.'))).toEqual([])
    } finally {
      for (const stream of streams) stream.close()
    }
  })

  it('are offered to webhooks: the catalogue lists org.* and membership.*', async () => {
    const superuser = await seedAndLogin(t.app, {}, { superuser: true })
    const types = ['org.created', 'org.updated', 'org.deleted', 'membership.added', 'membership.role_changed', 'membership.removed']
    const created = await request('POST', '/admin/webhooks', superuser, { url: 'https://example.com/hooks', events: types })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json().events).toEqual(types)
  })
})

