// Who acted, in the security log: when someone other than the user acts on their account (a
// superuser banning them, lifting the ban, ending their sessions, resetting their second factors,
// or working through a full support impersonation), each event in the user's log (and the
// organization's) names that superuser as actor_id and carries neither their address nor their
// browser. The events are whatever the features record: one writer holds the rule for all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { enrolTotp } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

const SUPPORT_BROWSER = 'SupportDesk/1.0 (the superuser)'
const SUPPORT_ADDRESS = '198.51.100.99'

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp({ LOGIN_RATE_LIMIT: '1000' })
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

/** A request as the superuser makes it, from their own browser and address. */
const asSupport = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method, url, headers: { ...headers, 'user-agent': SUPPORT_BROWSER }, remoteAddress: SUPPORT_ADDRESS, ...(payload ? { payload } : {}) })

interface LoggedEvent {
  type: string
  user_id: number | null
  actor_id?: number
  ip: string | null
  user_agent: string | null
}

async function logOf(who: LoggedIn): Promise<LoggedEvent[]> {
  return (await t.app.inject({ url: `${V2}/users/me/security-events?limit=100`, headers: who.headers })).json().data
}

describe('the security log', () => {
  it('names the superuser who acted on an account as actor_id, and keeps their address and browser out of the user\'s log', async () => {
    const who = await seedAndLogin(t.app)
    await enrolTotp(t.app, who.headers)
    expect((await asSupport('POST', `${V2}/admin/users/${who.user.id}/ban`, admin.headers, { reason: 'spam' })).statusCode).toBe(200)
    expect((await asSupport('DELETE', `${V2}/admin/users/${who.user.id}/ban`, admin.headers)).statusCode).toBe(200)
    expect((await asSupport('DELETE', `${V2}/admin/users/${who.user.id}/mfa`, admin.headers)).statusCode).toBe(200)
    const again = await seedAndLogin(t.app)
    expect((await asSupport('DELETE', `${V2}/admin/users/${again.user.id}/sessions`, admin.headers)).statusCode).toBe(200)

    const relogged = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: who.user.username, password: who.user.password } })
    const log = await logOf({ ...who, headers: { authorization: `Bearer ${relogged.json().access_token}` } })
    const byTheSuperuser = log.filter((event) => event.actor_id !== undefined)
    expect(byTheSuperuser.map((event) => event.type)).toEqual(expect.arrayContaining(['user_banned', 'user_unbanned', 'mfa_reset_by_admin']))
    for (const event of byTheSuperuser) expect(event).toMatchObject({ user_id: who.user.id, actor_id: admin.user.id, ip: null, user_agent: null })
    for (const event of log) expect([event.ip, event.user_agent]).not.toContain(SUPPORT_ADDRESS)
    for (const event of log) expect(event.user_agent).not.toBe(SUPPORT_BROWSER)

    const superusersView = (await t.app.inject({ url: `${V2}/security-events?user_id=${again.user.id}&limit=100`, headers: admin.headers })).json().data as LoggedEvent[]
    const ended = superusersView.filter((event) => event.type === 'session_revoked')
    expect(ended).toEqual([expect.objectContaining({ user_id: again.user.id, actor_id: admin.user.id, ip: null, user_agent: null })])
  })

  it("records what a full impersonation does as the superuser's, in the user's log and the organization's", async () => {
    const who = await seedAndLogin(t.app)
    const started = await asSupport('POST', `${V2}/admin/users/${who.user.id}/impersonate`, admin.headers, { reason: 'ticket #9', mode: 'full' })
    expect(started.statusCode, started.body).toBe(201)
    const support = { authorization: `Bearer ${started.json().access_token}` }
    const org = await asSupport('POST', `${V2}/orgs`, support, { name: 'Made by support' })
    expect(org.statusCode, org.body).toBe(201)

    const own = await logOf(who)
    const acted = own.filter((event) => ['org_created', 'member_added'].includes(event.type))
    expect(acted.map((event) => event.type).sort()).toEqual(['member_added', 'org_created'])
    for (const event of acted) expect(event).toMatchObject({ user_id: who.user.id, actor_id: admin.user.id, ip: null, user_agent: null })
    const orgLog = (await t.app.inject({ url: `${V2}/orgs/${org.json().id}/security-events`, headers: who.headers })).json().data as LoggedEvent[]
    expect(orgLog.length).toBeGreaterThan(0)
    for (const event of orgLog) expect(event).toMatchObject({ actor_id: admin.user.id, ip: null, user_agent: null })

    // What the user does themselves stays theirs, with their own browser.
    const mine = await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: { ...who.headers, 'user-agent': 'MyPhone/2' }, payload: { name: 'Made by me' } })
    expect(mine.statusCode).toBe(201)
    const created = (await logOf(who)).filter((event) => event.type === 'org_created' && event.actor_id === undefined)
    expect(created).toEqual([expect.objectContaining({ user_id: who.user.id, user_agent: 'MyPhone/2' })])
  })
})
