// Reports end to end, over HTTP and a real SMTP server, on both databases: filing (once while open,
// only what the reporter can see, never oneself), the superusers' queue and an organization's,
// each action through the slice that owns its target with its security events, and the outcome
// mailed to every reporter of the target in their language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let smtp: TestSmtpServer
let close: () => Promise<void>
let author: LoggedIn
let reporter: LoggedIn
let german: LoggedIn
let superuser: LoggedIn

const send = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function newPost(fields: object = {}, who: LoggedIn = author): Promise<number> {
  const response = await send(who, 'POST', '/posts', { title: 'Reported', text: 'Something', ...fields })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ id: number }>().id
}

const report = (who: LoggedIn, target: string, id: number, reason = 'spam') => send(who, 'POST', '/reports', { target, id, reason, note: 'See for yourself' })

beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp())
  author = await seedAndLogin(t.app)
  reporter = await seedAndLogin(t.app)
  german = await seedAndLogin(t.app)
  await t.db.updateTable('users').set({ locale: 'de' }).where('id', '=', german.user.id).execute()
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
})

afterAll(async () => {
  await close()
})

describe('filing a report', () => {
  it('takes one open report per reporter and target, of what the reporter can see, never of themselves', async () => {
    const postId = await newPost()
    const filed = await report(reporter, 'post', postId)
    expect(filed.statusCode, filed.body).toBe(201)
    expect(filed.json()).toMatchObject({ target: 'post', target_id: postId, reason: 'spam', status: 'open' })
    expect(filed.json()).not.toHaveProperty('target_owner_id')
    const again = await report(reporter, 'post', postId, 'hate')
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'report_exists' })
    const hidden = await newPost({ visibility: 'private' })
    expect((await report(reporter, 'post', hidden)).json()).toMatchObject({ code: 'post_not_found' })
    expect((await report(reporter, 'comment', 2_147_483_647)).json()).toMatchObject({ code: 'comment_not_found' })
    expect((await report(reporter, 'user', 2_147_483_647)).json()).toMatchObject({ code: 'user_not_found' })
    expect((await report(author, 'post', postId)).json()).toMatchObject({ code: 'validation_failed' })
    expect((await send(reporter, 'POST', '/reports', { target: 'post', id: postId, reason: 'boredom' })).statusCode).toBe(422)
    expect((await send(null, 'POST', '/reports', { target: 'post', id: postId, reason: 'spam' })).statusCode).toBe(401)
  })
})

describe('the queues', () => {
  it('hides a reported comment for every reporter at once, records it, and mails each the outcome in their language', async () => {
    const postId = await newPost()
    const comment = (await send(author, 'POST', `/posts/${postId}/comments`, { text: 'Buy cheap pills' })).json<{ id: number }>()
    const first = (await report(reporter, 'comment', comment.id)).json<{ id: number }>()
    expect((await report(german, 'comment', comment.id, 'other')).statusCode).toBe(201)

    // Only superusers read the whole queue.
    expect((await send(reporter, 'GET', '/admin/reports')).statusCode).toBe(403)
    const queue = (await send(superuser, 'GET', '/admin/reports?limit=100')).json<{ data: { id: number; target_owner_id: number; reporter_id: number }[] }>()
    expect(queue.data.find((entry) => entry.id === first.id)).toMatchObject({ target_owner_id: author.user.id, reporter_id: reporter.user.id })

    const resolved = await send(superuser, 'POST', `/admin/reports/${first.id}/resolve`, { action: 'hide' })
    expect(resolved.statusCode, resolved.body).toBe(200)
    expect(resolved.json()).toMatchObject({ status: 'actioned', action: 'hide', resolved_by: superuser.user.id })
    expect((await send(null, 'GET', `/comments/${comment.id}`)).json()).toMatchObject({ status: 'hidden', text: null })
    const open = (await send(superuser, 'GET', '/admin/reports?limit=100')).json<{ data: { target: string; target_id: number }[] }>()
    expect(open.data.filter((entry) => entry.target === 'comment' && entry.target_id === comment.id)).toEqual([])

    const events = await t.db.selectFrom('security_events').select(['type', 'details']).where('user_id', '=', superuser.user.id).where('type', 'in', ['comment_hidden', 'report_resolved']).execute()
    expect(events.map((event) => event.type).sort()).toEqual(['comment_hidden', 'report_resolved'])
    expect(JSON.parse(events.find((event) => event.type === 'report_resolved')!.details!)).toMatchObject({ report_id: first.id, action: 'hide', reports: 2 })

    const [toReporter] = await smtp.waitFor(reporter.user.email, 1)
    expect(toReporter!.subject).toBe('Your report has been reviewed')
    expect(toReporter!.text).toContain('a comment')
    expect(toReporter!.text).toContain('it broke the rules, and we acted on it.')
    const [toGerman] = await smtp.waitFor(german.user.email, 1)
    expect(toGerman!.subject).toBe('Ihre Meldung wurde geprüft')
  })

  it("lets an organization's admins see and dismiss or hide the reports of its posts only", async () => {
    const admin = await seedAndLogin(t.app)
    const org = (await send(admin, 'POST', '/orgs', { name: `Reported ${Date.now()}` })).json<{ id: number; slug: string }>()
    await t.db.insertInto('org_memberships').values({ org_id: org.id, user_id: author.user.id, role: 'member', created_at: new Date().toISOString() }).execute()
    const inOrg = await newPost({ org_id: org.id })
    const outside = await newPost()
    const ofOrg = (await report(reporter, 'post', inOrg, 'misinformation')).json<{ id: number }>()
    const notOfOrg = (await report(reporter, 'post', outside, 'misinformation')).json<{ id: number }>()
    const queue = (await send(admin, 'GET', `/orgs/${org.slug}/reports`)).json<{ data: { id: number; org_id: number }[] }>()
    expect(queue.data.map((entry) => entry.id)).toEqual([ofOrg.id])
    expect((await send(reporter, 'GET', `/orgs/${org.slug}/reports`)).statusCode).toBe(404)
    expect((await send(admin, 'POST', `/orgs/${org.slug}/reports/${notOfOrg.id}/resolve`, { action: 'dismiss' })).json()).toMatchObject({ code: 'report_not_found' })
    expect((await send(admin, 'POST', `/orgs/${org.slug}/reports/${ofOrg.id}/resolve`, { action: 'ban' })).statusCode).toBe(403)
    const hidden = await send(admin, 'POST', `/orgs/${org.slug}/reports/${ofOrg.id}/resolve`, { action: 'hide' })
    expect(hidden.statusCode, hidden.body).toBe(200)
    expect((await send(null, 'GET', `/posts/${inOrg}`)).statusCode).toBe(404)
    const dismissed = await send(superuser, 'POST', `/admin/reports/${notOfOrg.id}/resolve`, { action: 'dismiss' })
    expect(dismissed.json()).toMatchObject({ status: 'dismissed', action: 'dismiss' })
    expect((await send(null, 'GET', `/posts/${outside}`)).statusCode).toBe(200)
    const mails = await smtp.waitFor(reporter.user.email, 3)
    expect(mails.some((mail) => mail.text.includes('it does not break the rules, so it stays.'))).toBe(true)

    // Made private after the report: the organization's admins read it no more, so they cannot hide it, and the report stays open for a superuser.
    const madePrivate = await newPost({ org_id: org.id })
    const ofPrivate = (await report(reporter, 'post', madePrivate, 'spam')).json<{ id: number }>()
    expect((await send(author, 'PATCH', `/posts/${madePrivate}`, { visibility: 'private' })).statusCode).toBe(200)
    const refused = await send(admin, 'POST', `/orgs/${org.slug}/reports/${ofPrivate.id}/resolve`, { action: 'hide' })
    expect(refused.json()).toMatchObject({ code: 'post_not_found' })
    expect((await send(author, 'GET', `/posts/${madePrivate}`)).statusCode).toBe(200)
    const open = (await send(superuser, 'GET', '/admin/reports?status=open&limit=100')).json<{ data: { id: number }[] }>()
    expect(open.data.map((entry) => entry.id)).toContain(ofPrivate.id)
    expect((await send(superuser, 'POST', `/admin/reports/${ofPrivate.id}/resolve`, { action: 'hide' })).json()).toMatchObject({ status: 'actioned' })
    expect((await send(author, 'GET', `/posts/${madePrivate}`)).statusCode).toBe(404)
  })

  it("bans a reported user, and refuses what a user cannot be given", async () => {
    const troll = await seedAndLogin(t.app)
    const filed = (await report(reporter, 'user', troll.user.id, 'harassment')).json<{ id: number }>()
    expect((await send(superuser, 'POST', `/admin/reports/${filed.id}/resolve`, { action: 'hide' })).json()).toMatchObject({ code: 'validation_failed' })
    const banned = await send(superuser, 'POST', `/admin/reports/${filed.id}/resolve`, { action: 'ban' })
    expect(banned.statusCode, banned.body).toBe(200)
    expect((await send(troll, 'GET', '/users/me')).statusCode).toBe(403)
  })
})
