// The account lifecycle end to end through a real SMTP server: verification, reset, change,
// email change, sessions, security events, REQUIRE_VERIFIED_EMAIL — in both versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp, expectAnswerBeforeLookup, expectLimitedPerAddressAndEmail, tokenIn } from '../../../test/helpers/smtp.js'
import { login, seedAndLogin, seedUser,V1, V2 } from '../../../test/helpers/users.js'
import { drained } from '../../../test/helpers/wait.js'

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
    await drained(t.app, 'mail')
    expect(smtp.messages.filter((message) => message.to === me.user.email)).toHaveLength(1)
  })

  it('refuses unknown and expired tokens with 400, and needs a login to ask', async () => {
    expectError(await post(`${prefix}/email-verification/confirm`, { token: 'not-a-token' }), 400, 'Invalid or expired token')
    const me = await seedAndLogin(t.app)
    await post(`${prefix}/email-verification`, undefined, me.headers)
    const token = tokenIn((await smtp.waitFor(me.user.email))[0]!)
    await t.db.updateTable('one_time_secrets').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_id', '=', me.user.id).where('purpose', '=', 'verify_email').execute()
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
    const rows = await t.db.selectFrom('one_time_secrets').selectAll().where('user_id', '=', me.user.id).where('purpose', '=', 'verify_email').execute()
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows[0])).not.toContain(token)
    expect(rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/)
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
    await drained(t.app, 'mail')
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

  it('revokes every API key of the user: a key minted by an intruder dies with the recovery', async () => {
    const owner = await seedAndLogin(t.app)
    const minted = await post(`${prefix}/api-keys/`, { name: 'intruder', scopes: ['read', 'write'] }, owner.headers)
    const key = minted.json().key as string
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: { 'x-api-key': key } })).statusCode).toBe(200)
    await post(`${prefix}/password-reset`, { email: owner.user.email })
    const token = tokenIn((await smtp.waitFor(owner.user.email))[0]!)
    expect((await post(`${prefix}/password-reset/confirm`, { token, new_password: 'recovered at last 12' })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: { 'x-api-key': key } }), 401, 'Not authenticated')
  })

  it('a reset link mailed before a password change or an email change no longer works', async () => {
    const changer = await seedAndLogin(t.app)
    await post(`${prefix}/password-reset`, { email: changer.user.email })
    const beforeChange = tokenIn((await smtp.waitFor(changer.user.email))[0]!)
    const changed = await post(`${prefix}/users/me/password`, { current_password: changer.user.password, new_password: 'changed meanwhile 44' }, changer.headers)
    expect(changed.statusCode, changed.body).toBe(200)
    expectError(await post(`${prefix}/password-reset/confirm`, { token: beforeChange, new_password: 'the attacker wins 45' }), 400, 'Invalid or expired token')

    const mover = await seedAndLogin(t.app)
    await post(`${prefix}/password-reset`, { email: mover.user.email })
    const beforeMove = tokenIn((await smtp.waitFor(mover.user.email))[0]!)
    const movedTo = `moved_reset_${mover.user.id}_${prefix.length}@example.com`
    expect((await t.app.inject({ method: 'PATCH', url: `${prefix}/users/${mover.user.id}`, payload: { email: movedTo, current_password: mover.user.password }, headers: mover.headers })).statusCode).toBe(200)
    await smtp.waitFor(movedTo)
    expectError(await post(`${prefix}/password-reset/confirm`, { token: beforeMove, new_password: 'the attacker wins 46' }), 400, 'Invalid or expired token')
  })

  it('refuses a common new password with 422 and keeps the token usable', async () => {
    const user = await seedUser(t.app)
    await post(`${prefix}/password-reset`, { email: user.email })
    const token = tokenIn((await smtp.waitFor(user.email))[0]!)
    const common = await post(`${prefix}/password-reset/confirm`, { token, new_password: 'password123' })
    expectError(common, 422, 'Password is too common')
    expect(common.json().errors[0].loc).toEqual(['body', 'new_password'])
    expect((await post(`${prefix}/password-reset/confirm`, { token, new_password: 'much better secret 31' })).statusCode).toBe(200)
  })
})

describe('verification mail limits', () => {
  it('limit verification mails per user and per recipient address, not only requests', async () => {
    const limited = await createTestApp({ SMTP_URL: smtp.url, VERIFICATION_MAIL_RATE_LIMIT: '2' })
    try {
      const me = await seedAndLogin(limited.app)
      const ask = () => limited.app.inject({ method: 'POST', url: `${V2}/email-verification`, headers: me.headers })
      expect((await ask()).statusCode).toBe(202)
      expect((await ask()).statusCode).toBe(202)
      expectError(await ask(), 429, 'Too many requests')

      // Moving emails to someone else's address mails that address at most twice, whoever moves.
      const victim = `victim_${me.user.id}@example.com`
      const movers = [await seedAndLogin(limited.app), await seedAndLogin(limited.app), await seedAndLogin(limited.app)]
      for (const mover of movers) {
        const moveTo = (email: string) => limited.app.inject({ method: 'PATCH', url: `${V2}/users/${mover.user.id}`, payload: { email, current_password: mover.user.password }, headers: mover.headers })
        expect((await moveTo(victim)).statusCode).toBe(200)
        expect((await moveTo(`elsewhere_${mover.user.id}@example.com`)).statusCode).toBe(200)
      }
      // Every change is still announced to the address it left, the refused one included: the
      // victim gets three notices (each mover left it again) and two links, five mails in all.
      await smtp.waitFor(movers[2]!.user.email)
      await smtp.waitFor(victim, 5)
      await drained(limited.app, 'mail')
      const toVictim = smtp.messages.filter((message) => message.to === victim)
      expect(toVictim.filter((message) => message.subject === 'Confirm your email address')).toHaveLength(2)
      expect(toVictim).toHaveLength(5)
    } finally {
      await limited.close()
    }
  })
})

describe('names in mails', () => {
  it('refuses line breaks in a name, and keeps a stored one on its line in every mail', async () => {
    const me = await seedAndLogin(t.app)
    for (const name of ['Ada\nBcc: evil@example.net', 'Ada\r\nX', 'Ada\u2028Lovelace', 'Ada\tL']) {
      expectError(await t.app.inject({ method: 'PATCH', url: `${V2}/users/${me.user.id}`, payload: { name }, headers: me.headers }), 422)
    }
    // A name stored before the rule: it stays on the line the template gives it.
    await t.db.updateTable('users').set({ name: 'Ada\n\nClick evil.example' }).where('id', '=', me.user.id).execute()
    expect((await post(`${V2}/email-verification`, undefined, me.headers)).statusCode).toBe(202)
    const [mail] = await smtp.waitFor(me.user.email)
    expect(mail?.text).toContain('Ada Click evil.example')
  })
})

describe('password reset timing', () => {
  it('answers before looking the address up, so a registered address answers as fast as an unknown one', async () => {
    await expectAnswerBeforeLookup(t, smtp, `${V2}/password-reset`)
  })
})

describe('password reset rate limit', () => {
  it('limits requests per client address and per email', async () => {
    const limited = await createTestApp({ SMTP_URL: smtp.url, PASSWORD_RESET_RATE_LIMIT: '2' })
    try {
      await expectLimitedPerAddressAndEmail(limited.app, `${V1}/password-reset`, '10.7.0')
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
    const common = await change({ current_password: me.user.password, new_password: 'password1' })
    expectError(common, 422, 'Password is too common')
    expect(common.json().errors[0].loc).toEqual(['body', 'new_password'])
    expect((await change({ current_password: me.user.password, new_password: 'a fresh secret 99' })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(other.accessToken) }), 401, 'Not authenticated')
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: me.headers })).statusCode).toBe(200)
    await expect(login(t.app, me.user.username, 'a fresh secret 99')).resolves.toBeDefined()
  })

  it('keeps API keys unless asked, says how many still work, and revokes them when asked', async () => {
    const me = await seedAndLogin(t.app)
    const key = (await post(`${prefix}/api-keys/`, { name: 'deploys', scopes: ['read'] }, me.headers)).json().key as string
    const kept = await post(`${prefix}/users/me/password`, { current_password: me.user.password, new_password: 'kept keys pass 17' }, me.headers)
    expect(kept.json()).toEqual({ message: 'Password changed', revoked_api_keys: 0, live_api_keys: 1 })
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: { 'x-api-key': key } })).statusCode).toBe(200)
    const revoked = await post(`${prefix}/users/me/password`, { current_password: 'kept keys pass 17', new_password: 'no keys pass 18', revoke_api_keys: true }, me.headers)
    expect(revoked.json()).toEqual({ message: 'Password changed', revoked_api_keys: 1, live_api_keys: 0 })
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: { 'x-api-key': key } }), 401, 'Not authenticated')
  })
})

describe('guessing the current password', () => {
  it("spends the account's login budget: a password change cannot be used to guess past the login limit", async () => {
    const limited = await createTestApp({ LOGIN_RATE_LIMIT: '3' })
    try {
      const me = await seedAndLogin(limited.app)
      const guess = (password: string) =>
        limited.app.inject({ method: 'POST', url: `${V2}/users/me/password`, payload: { current_password: password, new_password: 'whatever it is 55' }, headers: me.headers, remoteAddress: '10.9.0.1' })
      // The login spent one of the account's three attempts; two guesses are left.
      expectError(await guess('guess one'), 400, 'Incorrect password')
      expectError(await guess('guess two'), 400, 'Incorrect password')
      const refused = await guess(me.user.password)
      expectError(refused, 429, 'Too many requests')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
      // The budget is the account's, wherever the guesses come from: login is refused too.
      expectError(await limited.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: me.user.username, password: me.user.password }, remoteAddress: '10.9.0.2' }), 429, 'Too many requests')
    } finally {
      await limited.close()
    }
  })
})

describe('changing the email', () => {
  it('unverifies the account, mails a link to the new address and a notice to the old one', async () => {
    const me = await seedAndLogin(t.app)
    await t.db.updateTable('users').set({ is_verified: 1 }).where('id', '=', me.user.id).execute()
    const newEmail = `moved_${me.user.id}@example.com`
    const patched = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${me.user.id}`, payload: { email: newEmail, current_password: me.user.password }, headers: me.headers })
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
    await t.app.inject({ method: 'PATCH', url: `${V1}/users/${me.user.id}`, payload: { email: `again_${me.user.id}@example.com`, current_password: me.user.password }, headers: me.headers })
    expectError(await post(`${V1}/email-verification/confirm`, { token: oldToken }), 400, 'Invalid or expired token')
  })
})

describe.each([V1, V2])('moving the email (%s)', (prefix) => {
  const patch = (who: { user: { id: number }; headers: Record<string, string> }, payload: object) =>
    t.app.inject({ method: 'PATCH', url: `${prefix}/users/${who.user.id}`, payload, headers: who.headers })

  it('needs the current password in the same body; a superuser changing another user does not', async () => {
    const me = await seedAndLogin(t.app)
    const target = `proved_${me.user.id}_${prefix.length}@example.com`
    expectError(await patch(me, { email: target }), 400, 'Incorrect password', 'incorrect_password')
    expectError(await patch(me, { email: target, current_password: 'not it at all' }), 400, 'Incorrect password', 'incorrect_password')
    // Other fields, and the same address in other letters, need no proof.
    expect((await patch(me, { name: 'Still Me', email: me.user.email.toUpperCase() })).statusCode).toBe(200)
    expect((await patch(me, { email: target, current_password: me.user.password })).json().email).toBe(target)
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const other = await seedUser(t.app)
    expect((await patch({ user: other, headers: admin.headers }, { email: `by_admin_${other.id}_${prefix.length}@example.com` })).statusCode).toBe(200)
    expectError(await patch(admin, { email: `admin_self_${admin.user.id}@example.com` }), 400, 'Incorrect password')
  })

  it('mails the previous address a link that undoes the change and ends every session, for 7 days', async () => {
    const owner = await seedAndLogin(t.app)
    const intruder = await login(t.app, owner.user.username, owner.user.password, prefix)
    const key = (await post(`${prefix}/api-keys/`, { name: 'intruder', scopes: ['read'] }, bearer(intruder.accessToken))).json().key as string
    const taken = `taken_over_${owner.user.id}_${prefix.length}@example.com`
    expect((await t.app.inject({ method: 'PATCH', url: `${prefix}/users/${owner.user.id}`, payload: { email: taken, current_password: owner.user.password }, headers: bearer(intruder.accessToken) })).statusCode).toBe(200)
    const [notice] = await smtp.waitFor(owner.user.email)
    expect(notice?.text).toContain('/account/undo-email-change?token=')
    expect(notice?.text).toContain('7 days')
    const token = tokenIn(notice!)
    const row = await t.db.selectFrom('one_time_secrets').select('expires_at').where('purpose', '=', 'undo_email_change').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()
    const days = (new Date(row.expires_at).getTime() - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThanOrEqual(7)

    const undone = await post(`${prefix}/email-change/undo`, { token })
    expect(undone.statusCode, undone.body).toBe(200)
    expectError(await post(`${prefix}/email-change/undo`, { token }), 400, 'Invalid or expired token')
    for (const session of [owner, intruder]) {
      expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: bearer(session.accessToken) }), 401, 'Not authenticated')
    }
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: { 'x-api-key': key } }), 401, 'Not authenticated')
    const back = await login(t.app, owner.user.username, owner.user.password, prefix)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(back.accessToken) })).json()).toMatchObject({ email: owner.user.email, is_verified: true })
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

  it('offer the reset form again, with the same link, when the new password is refused', async () => {
    const me = await seedAndLogin(t.app)
    await post(`${V1}/password-reset`, { email: me.user.email })
    const token = tokenIn((await smtp.waitFor(me.user.email)).at(-1)!)
    const form = (newPassword: string) =>
      t.app.inject({
        method: 'POST',
        url: '/account/reset-password',
        payload: `token=${encodeURIComponent(token)}&new_password=${encodeURIComponent(newPassword)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    const refused = await form('password123')
    expect(refused.statusCode).toBe(422)
    expect(refused.body).toContain('Password is too common. Try another.')
    expect(refused.body).toContain('<form method="post" action="/account/reset-password">')
    expect(refused.body).toContain(`name="token" value="${token}"`)
    const changed = await form('a far better secret 7')
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toContain('Your password is changed')
  })

  it('post their forms to the page itself, with or without a trailing slash', async () => {
    for (const page of ['verify-email', 'reset-password', 'undo-email-change']) {
      for (const url of [`/account/${page}?token=x`, `/account/${page}/?token=x`]) {
        const answer = await t.app.inject({ url })
        expect(answer.statusCode, url).toBe(200)
        expect(answer.body).toContain(`action="/account/${page}"`)
      }
    }
  })
})
