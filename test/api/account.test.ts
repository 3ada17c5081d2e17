// The account lifecycle end to end through a real SMTP server: verification, reset, change,
// email change, sessions, security events, REQUIRE_VERIFIED_EMAIL — in both versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import { createAppWithSmtp, tokenIn } from '../helpers/smtp.js'
import type { TestSmtpServer } from '../helpers/smtp.js'
import { V1, V2, login, seedAndLogin, seedUser } from '../helpers/users.js'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  const setup = await createAppWithSmtp()
  smtp = setup.smtp
  t = setup.t
  close = setup.close
})
afterAll(() => close())

const post = (url: string, payload?: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, ...(payload ? { payload } : {}), headers })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe.each([V1, V2])('email verification (%s)', (prefix) => {
  it('mails a single-use link that verifies the address', async () => {
    const me = await seedAndLogin(t.app)
    const requested = await post(`${prefix}/email-verification`, undefined, me.headers)
    expect(requested.statusCode).toBe(202)
    expect(requested.json()).toEqual({ message: expect.any(String) })
    const [mail] = await smtp.waitFor(me.user.email)
    expect(mail?.subject).toBe('Confirm your email address')
    expect(mail?.html).toContain('href=')
    const token = tokenIn(mail!)

    expect((await post(`${prefix}/email-verification/confirm`, { token })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: me.headers })).json().is_verified).toBe(true)
    expectError(await post(`${prefix}/email-verification/confirm`, { token }), 400, 'Invalid or expired token')

    const again = await post(`${prefix}/email-verification`, undefined, me.headers)
    expect(again.statusCode).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(smtp.messages.filter((message) => message.to === me.user.email)).toHaveLength(1)
  })

  it('refuses unknown and expired tokens with 400, and needs a login to ask', async () => {
    expectError(await post(`${prefix}/email-verification/confirm`, { token: 'not-a-token' }), 400, 'Invalid or expired token')
    const me = await seedAndLogin(t.app)
    await post(`${prefix}/email-verification`, undefined, me.headers)
    const token = tokenIn((await smtp.waitFor(me.user.email))[0]!)
    await t.db.updateTable('user_tokens').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_id', '=', me.user.id).execute()
    expectError(await post(`${prefix}/email-verification/confirm`, { token }), 400, 'Invalid or expired token')
    expectError(await post(`${prefix}/email-verification`), 401, 'Not authenticated')
  })

  it('retires an older link when a newer one is mailed', async () => {
    const me = await seedAndLogin(t.app)
    await post(`${prefix}/email-verification`, undefined, me.headers)
    const first = tokenIn((await smtp.waitFor(me.user.email))[0]!)
    await post(`${prefix}/email-verification`, undefined, me.headers)
    const second = tokenIn((await smtp.waitFor(me.user.email, 2))[1]!)
    expectError(await post(`${prefix}/email-verification/confirm`, { token: first }), 400, 'Invalid or expired token')
    expect((await post(`${prefix}/email-verification/confirm`, { token: second })).statusCode).toBe(200)
  })

  it('stores tokens hashed: the mail holds the only copy', async () => {
    const me = await seedAndLogin(t.app)
    await post(`${prefix}/email-verification`, undefined, me.headers)
    const token = tokenIn((await smtp.waitFor(me.user.email))[0]!)
    const rows = await t.db.selectFrom('user_tokens').select('token_hash').where('user_id', '=', me.user.id).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]?.token_hash).not.toContain(token)
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe.each([V1, V2])('password reset (%s)', (prefix) => {
  it('answers the same for a registered and an unknown email, and mails only the first', async () => {
    const user = await seedUser(t.app)
    const known = await post(`${prefix}/password-reset`, { email: user.email })
    const unknown = await post(`${prefix}/password-reset`, { email: `nobody_${user.id}@example.com` })
    expect(known.statusCode).toBe(202)
    expect(unknown.statusCode).toBe(202)
    expect(unknown.body).toBe(known.body)
    await smtp.waitFor(user.email)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(smtp.messages.filter((message) => message.to === `nobody_${user.id}@example.com`)).toEqual([])
  })

  it('sets the password, ends every session and token of the user, and marks the email verified', async () => {
    const user = await seedUser(t.app)
    const laptop = await login(t.app, user.username, user.password, prefix)
    const phone = await login(t.app, user.username, user.password, prefix)
    await post(`${prefix}/password-reset`, { email: user.email.toUpperCase() })
    const token = tokenIn((await smtp.waitFor(user.email))[0]!)

    const confirmed = await post(`${prefix}/password-reset/confirm`, { token, new_password: 'a brand new secret 7' })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    for (const session of [laptop, phone]) {
      expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(session.accessToken) }), 401, 'Not authenticated')
      expectError(await post(`${prefix}/refresh`, { refresh_token: session.refreshToken }), 401, 'Not authenticated')
    }
    await expect(login(t.app, user.username, user.password, prefix)).rejects.toThrow(/401/)
    const fresh = await login(t.app, user.username, 'a brand new secret 7', prefix)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(fresh.accessToken) })).json().is_verified).toBe(true)
    expectError(await post(`${prefix}/password-reset/confirm`, { token, new_password: 'another new secret 8' }), 400, 'Invalid or expired token')
  })

  it('refuses a common new password with 422 and keeps the token usable', async () => {
    const user = await seedUser(t.app)
    await post(`${prefix}/password-reset`, { email: user.email })
    const token = tokenIn((await smtp.waitFor(user.email))[0]!)
    expectError(await post(`${prefix}/password-reset/confirm`, { token, new_password: 'password123' }), 422, 'Password is too common')
    expect((await post(`${prefix}/password-reset/confirm`, { token, new_password: 'much better secret 31' })).statusCode).toBe(200)
  })
})

describe('password reset rate limit', () => {
  it('limits requests per client address and per email', async () => {
    const limited = await createTestApp({ SMTP_URL: smtp.url, PASSWORD_RESET_RATE_LIMIT: '2' })
    try {
      const ask = (email: string, remoteAddress: string) =>
        limited.app.inject({ method: 'POST', url: `${V1}/password-reset`, payload: { email }, remoteAddress })
      expect((await ask('a@example.com', '10.7.0.1')).statusCode).toBe(202)
      expect((await ask('b@example.com', '10.7.0.1')).statusCode).toBe(202)
      const byAddress = await ask('c@example.com', '10.7.0.1')
      expectError(byAddress, 429, 'Too many requests')
      expect(Number(byAddress.headers['retry-after'])).toBeGreaterThan(0)
      expect((await ask('a@example.com', '10.7.0.2')).statusCode).toBe(202)
      expectError(await ask('A@example.com', '10.7.0.3'), 429, 'Too many requests')
    } finally {
      await limited.close()
    }
  })
})

describe.each([V1, V2])('password change (%s)', (prefix) => {
  it('needs the current password, refuses weak ones, and ends every other session', async () => {
    const me = await seedAndLogin(t.app)
    const other = await login(t.app, me.user.username, me.user.password)
    const change = (payload: object) => post(`${prefix}/users/me/password`, payload, me.headers)
    expectError(await change({ current_password: 'not my password', new_password: 'a fresh secret 99' }), 400, 'Incorrect password')
    expectError(await change({ current_password: me.user.password, new_password: 'password1' }), 422, 'Password is too common')
    expect((await change({ current_password: me.user.password, new_password: 'a fresh secret 99' })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(other.accessToken) }), 401, 'Not authenticated')
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: me.headers })).statusCode).toBe(200)
    await expect(login(t.app, me.user.username, 'a fresh secret 99')).resolves.toBeDefined()
  })
})

describe('changing the email', () => {
  it('unverifies the account, mails a link to the new address and a notice to the old one', async () => {
    const me = await seedAndLogin(t.app)
    await t.db.updateTable('users').set({ is_verified: 1 }).where('id', '=', me.user.id).execute()
    const newEmail = `moved_${me.user.id}@example.com`
    const patched = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${me.user.id}`, payload: { email: newEmail }, headers: me.headers })
    expect(patched.json()).toMatchObject({ email: newEmail, is_verified: false })
    const [link] = await smtp.waitFor(newEmail)
    const [notice] = await smtp.waitFor(me.user.email)
    expect(notice?.subject).toBe('Your email address was changed')
    expect(notice?.text).toContain(newEmail)
    expect((await post(`${V1}/email-verification/confirm`, { token: tokenIn(link!) })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: me.headers })).json().is_verified).toBe(true)
  })

  it('a link mailed to the old address no longer verifies anything', async () => {
    const me = await seedAndLogin(t.app)
    await post(`${V1}/email-verification`, undefined, me.headers)
    const oldToken = tokenIn((await smtp.waitFor(me.user.email))[0]!)
    await t.app.inject({ method: 'PATCH', url: `${V1}/users/${me.user.id}`, payload: { email: `again_${me.user.id}@example.com` }, headers: me.headers })
    expectError(await post(`${V1}/email-verification/confirm`, { token: oldToken }), 400, 'Invalid or expired token')
  })
})

describe.each([V1, V2])('sessions (%s)', (prefix) => {
  it('lists the caller’s sessions and revokes one, or all but the current', async () => {
    const user = await seedUser(t.app)
    const headers = { 'user-agent': 'Laptop Browser/1.0' }
    const laptop = (await t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: { username: user.username, password: user.password }, headers })).json()
    const phone = await login(t.app, user.username, user.password)
    const tablet = await login(t.app, user.username, user.password)
    const listed = await t.app.inject({ url: `${prefix}/sessions`, headers: bearer(laptop.access_token) })
    expect(listed.statusCode).toBe(200)
    const sessions = listed.json() as { id: string; current: boolean; user_agent: string | null; ip: string }[]
    expect(sessions).toHaveLength(3)
    expect(sessions.filter((session) => session.current)).toHaveLength(1)
    expect(sessions.find((session) => session.current)?.user_agent).toBe('Laptop Browser/1.0')
    expect(Object.keys(sessions[0]!).sort()).toEqual(['created_at', 'current', 'id', 'ip', 'last_used_at', 'user_agent'])

    const phoneSession = (await t.app.inject({ url: `${prefix}/sessions`, headers: bearer(phone.accessToken) })).json().find((s: { current: boolean }) => s.current).id
    expect((await t.app.inject({ method: 'DELETE', url: `${prefix}/sessions/${phoneSession}`, headers: bearer(laptop.access_token) })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(phone.accessToken) }), 401, 'Not authenticated')

    const stranger = await seedAndLogin(t.app)
    expectError(await t.app.inject({ method: 'DELETE', url: `${prefix}/sessions/${phoneSession}`, headers: stranger.headers }), 404, 'Session not found')
    const laptopSession = sessions.find((session) => session.current)!.id
    expectError(await t.app.inject({ method: 'DELETE', url: `${prefix}/sessions/${laptopSession}`, headers: stranger.headers }), 404, 'Session not found')

    expect((await t.app.inject({ method: 'DELETE', url: `${prefix}/sessions`, headers: bearer(laptop.access_token) })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(tablet.accessToken) }), 401, 'Not authenticated')
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(laptop.access_token) })).statusCode).toBe(200)
  })
})

describe('security events', () => {
  it('records logins, failures, logouts, reuse, password changes, verifications, revocations and deletions', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const user = await seedUser(t.app)
    await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: 'wrong password' } })
    const session = await login(t.app, user.username, user.password)
    const refreshed = await post(`${V1}/refresh`, { refresh_token: session.refreshToken })
    await post(`${V1}/refresh`, { refresh_token: session.refreshToken })
    const again = await login(t.app, user.username, user.password)
    await login(t.app, user.username, user.password) // another session, which the password change ends
    await post(`${V1}/users/me/password`, { current_password: user.password, new_password: 'yet another secret 5' }, bearer(again.accessToken))
    await post(`${V1}/logout`, undefined, bearer(again.accessToken))
    expect(refreshed.statusCode).toBe(200)

    const own = await t.app.inject({ url: `${V2}/users/me/security-events?limit=100`, headers: bearer((await login(t.app, user.username, 'yet another secret 5')).accessToken) })
    expect(own.statusCode).toBe(200)
    const types = (own.json().data as { type: string; user_id: number; ip: string }[]).map((event) => event.type)
    for (const type of ['login_failed', 'login_succeeded', 'refresh_token_reused', 'password_changed', 'session_revoked', 'logout']) {
      expect(types).toContain(type)
    }
    expect(own.json().data.every((event: { user_id: number; ip: string }) => event.user_id === user.id && event.ip)).toBe(true)

    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}/permanent`, headers: admin.headers })
    const all = await t.app.inject({ url: `${V1}/security-events?user_id=${user.id}&type=user_deleted_permanently`, headers: admin.headers })
    expect(all.statusCode).toBe(200)
    expect(all.json()).toMatchObject({ total_count: 1, data: [{ type: 'user_deleted_permanently', user_id: user.id }] })
    const forbidden = await t.app.inject({ url: `${V1}/security-events`, headers: (await seedAndLogin(t.app)).headers })
    expectError(forbidden, 403, 'Not enough permissions')
    expectError(await t.app.inject({ url: `${V1}/security-events?type=nothing`, headers: admin.headers }), 422)
  })
})

describe('REQUIRE_VERIFIED_EMAIL=true', () => {
  it('lets unverified users log in and read, but not write posts, until they verify', async () => {
    const strict = await createTestApp({ SMTP_URL: smtp.url, REQUIRE_VERIFIED_EMAIL: 'true' })
    try {
      const me = await seedAndLogin(strict.app)
      expect((await strict.app.inject({ url: `${V1}/posts/`, headers: me.headers })).statusCode).toBe(200)
      const write = () => strict.app.inject({ method: 'POST', url: `${V2}/posts/`, payload: { title: 'Hi', text: 'there' }, headers: me.headers })
      expectError(await write(), 403, 'Email not verified')
      await strict.app.inject({ method: 'POST', url: `${V1}/email-verification`, headers: me.headers })
      const token = tokenIn((await smtp.waitFor(me.user.email))[0]!)
      await strict.app.inject({ method: 'POST', url: `${V1}/email-verification/confirm`, payload: { token } })
      expect((await write()).statusCode).toBe(201)
      const admin = await seedAndLogin(strict.app, {}, { superuser: true })
      expect((await strict.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: { title: 'Admin', text: 'post' }, headers: admin.headers })).statusCode).toBe(201)
    } finally {
      await strict.close()
    }
  })
})

describe('the pages mailed links open', () => {
  it('confirm an email with a form POST (a mail scanner following the link consumes nothing)', async () => {
    const me = await seedAndLogin(t.app)
    await post(`${V1}/email-verification`, undefined, me.headers)
    const mail = (await smtp.waitFor(me.user.email))[0]!
    const link = /http:\/\/[^\s]+/.exec(mail.text)?.[0] ?? ''
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:8000\/account\/verify-email\?token=/)
    const page = await t.app.inject({ url: link.replace('http://127.0.0.1:8000', '') })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect(page.body).toContain('<form method="post"')
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: me.headers })).json().is_verified).toBe(false)
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/account/verify-email',
      payload: `token=${encodeURIComponent(tokenIn(mail))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(confirmed.statusCode).toBe(200)
    expect(confirmed.body).toContain('verified')
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: me.headers })).json().is_verified).toBe(true)
  })
})
