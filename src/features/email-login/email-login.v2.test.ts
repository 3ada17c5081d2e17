// Sign-in by email end to end through a real SMTP server: a link and a 6-digit code, single use,
// 15 minutes, five tries a request, no enumeration, no account created, limits per address and
// per email, redirect_to on AUTH_REDIRECT_ORIGINS only, the service's own page that a mail
// scanner cannot spend, login CSRF refused, EMAIL_LOGIN=off.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import type { DeliveredMail, TestSmtpServer } from '../../../test/helpers/smtp.js'
import { codeIn, createAppWithSmtp, expectAnswerBeforeLookup, expectLimitedPerAddressAndEmail, tokenIn } from '../../../test/helpers/smtp.js'
import { seedUser, V2 } from '../../../test/helpers/users.js'
import { drained } from '../../../test/helpers/wait.js'

const FRONTEND = 'http://localhost:5173'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  const setup = await createAppWithSmtp({ PUBLIC_URL: 'http://localhost:8000', AUTH_REDIRECT_ORIGINS: `${FRONTEND},http://localhost:8000` })
  smtp = setup.smtp
  t = setup.t
  close = setup.close
})
afterAll(() => close())

const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload, headers })
const ask = (email: string, extra: object = {}) => post(`${V2}/login/email`, { email, ...extra })
const confirm = (payload: object, headers: Record<string, string> = {}) => post(`${V2}/login/email/confirm`, payload, headers)

/** Asks for a sign-in mail for `email` and returns it (the n-th to that address). */
async function mailFor(email: string, extra: object = {}): Promise<DeliveredMail> {
  const before = smtp.messages.filter((message) => message.to === email).length
  expect((await ask(email, extra)).statusCode).toBe(202)
  return (await smtp.waitFor(email, before + 1))[before]!
}

const methodsOf = async (userId: number, type: string) =>
  (await t.db.selectFrom('security_events').select('method').where('user_id', '=', userId).where('type', '=', type).execute()).map((row) => row.method)

describe('POST /api/v2/login/email and /confirm', () => {
  it('mails a link and a code; the link signs in once, answering as a login does, and verifies the address', async () => {
    const user = await seedUser(t.app)
    const mail = await mailFor(user.email)
    expect(mail.subject).toBe('Your sign-in link and code')
    expect(mail.text).toContain('http://localhost:8000/account/email-login?token=')
    expect(codeIn(mail)).toMatch(/^\d{6}$/)
    // Stored by their hashes only: the mail holds the only copies.
    const stored = await t.db.selectFrom('one_time_secrets').selectAll().where('user_id', '=', user.id).where('purpose', '=', 'email_login').executeTakeFirstOrThrow()
    expect(JSON.stringify(stored)).not.toContain(tokenIn(mail))
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(stored.code_hash).not.toContain(codeIn(mail))

    const signedIn = await confirm({ token: tokenIn(mail) })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    const body = signedIn.json()
    expect(body).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), refresh_token: expect.any(String) })
    expect(signedIn.headers['cache-control']).toBe('no-store')
    expect(signedIn.cookies.map((cookie) => cookie.name).sort()).toEqual(['device', 'refresh_token'])
    const me = await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${body.access_token}` } })
    expect(me.json()).toMatchObject({ id: user.id, is_verified: true })

    expectError(await confirm({ token: tokenIn(mail) }), 400, 'Invalid or expired token', 'invalid_token')
    // The same mail's code went with the link.
    expectError(await confirm({ email: user.email, code: codeIn(mail) }), 400, 'Invalid or expired code', 'invalid_code')
    expect(await methodsOf(user.id, 'login_succeeded')).toEqual(['email_link'])
    expect(await methodsOf(user.id, 'email_login_requested')).toEqual([null])
  })

  it('signs in with the email (any case) and the code, once; the security log names the method', async () => {
    const user = await seedUser(t.app)
    const code = codeIn(await mailFor(user.email))
    const signedIn = await confirm({ email: user.email.toUpperCase(), code })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expectError(await confirm({ email: user.email, code }), 400, 'Invalid or expired code', 'invalid_code')
    expect(await methodsOf(user.id, 'login_succeeded')).toEqual(['email_code'])
    const events = await t.app.inject({ url: `${V2}/users/me/security-events?type=login_succeeded`, headers: { authorization: `Bearer ${signedIn.json().access_token}` } })
    expect(events.json().data[0]).toMatchObject({ type: 'login_succeeded', method: 'email_code' })
  })

  it('spends a request after five codes, right or wrong: the link and the right code stop working', async () => {
    const user = await seedUser(t.app)
    const mail = await mailFor(user.email)
    const code = codeIn(mail)
    const wrong = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 5; i++) expectError(await confirm({ email: user.email, code: wrong }), 400, 'Invalid or expired code', 'invalid_code')
    expectError(await confirm({ email: user.email, code }), 400, 'Invalid or expired code', 'invalid_code')
    expectError(await confirm({ token: tokenIn(mail) }), 400, 'Invalid or expired token', 'invalid_token')
    // Every refused code is logged, the one tried after the request was spent too.
    expect(await methodsOf(user.id, 'login_failed')).toEqual(Array(6).fill('email_code'))
  })

  it('tries no more than five codes however many guesses arrive at once', async () => {
    const user = await seedUser(t.app)
    const code = codeIn(await mailFor(user.email))
    const wrong = code === '000000' ? '111111' : '000000'
    const guesses = await Promise.all(Array.from({ length: 12 }, () => confirm({ email: user.email, code: wrong })))
    expect(guesses.every((guess) => guess.statusCode === 400)).toBe(true)
    const request = await t.db.selectFrom('one_time_secrets').select('attempts').where('user_id', '=', user.id).where('purpose', '=', 'email_login').where('used_at', 'is', null).executeTakeFirstOrThrow()
    expect(Number(request.attempts)).toBe(5)
    expectError(await confirm({ email: user.email, code }), 400, 'Invalid or expired code', 'invalid_code')
  })

  it('lets exactly one of two concurrent confirmations of a link win', async () => {
    const user = await seedUser(t.app)
    const token = tokenIn(await mailFor(user.email))
    const answers = await Promise.all([confirm({ token }), confirm({ token })])
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400])
  })

  it('retires an earlier mail when another is asked for, and refuses an expired one', async () => {
    const user = await seedUser(t.app)
    const first = await mailFor(user.email)
    const second = await mailFor(user.email)
    expectError(await confirm({ token: tokenIn(first) }), 400, 'Invalid or expired token')
    await t.db.updateTable('one_time_secrets').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_id', '=', user.id).where('purpose', '=', 'email_login').execute()
    expectError(await confirm({ email: user.email, code: codeIn(second) }), 400, 'Invalid or expired code')
    expectError(await confirm({ token: tokenIn(second) }), 400, 'Invalid or expired token')
  })

  it('answers every address alike and mails only live, active accounts: it never creates one', async () => {
    const unknown = `nobody_${Date.now()}@example.com`
    const inactive = await seedUser(t.app)
    await t.db.updateTable('users').set({ is_active: 0 }).where('id', '=', inactive.id).execute()
    const deleted = await seedUser(t.app)
    await t.app.services.users.softDelete({ id: 0, isSuperuser: true }, deleted.id)
    const live = await seedUser(t.app)
    const answers = await Promise.all([unknown, inactive.email, deleted.email, live.email].map((email) => ask(email)))
    expect(new Set(answers.map((answer) => answer.statusCode))).toEqual(new Set([202]))
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1)
    await smtp.waitFor(live.email)
    await t.app.services.emailLogin.settle()
    await drained(t.app, 'mail')
    for (const email of [unknown, inactive.email, deleted.email]) expect(smtp.messages.filter((message) => message.to === email)).toHaveLength(0)
    const users = await t.db.selectFrom('users').select('id').where('email', '=', unknown).execute()
    expect(users).toHaveLength(0)
    expectError(await confirm({ email: unknown, code: '123456' }), 400, 'Invalid or expired code')
  })

  it('answers before looking the address up, so a registered address answers as fast as an unknown one', async () => {
    await expectAnswerBeforeLookup(t, smtp, `${V2}/login/email`)
  })

  it('does the same work for a wrong code whether the address is registered, has a mail pending, or is unknown', async () => {
    // The statements of each confirmation, as its trace records them.
    const exporter = new InMemorySpanExporter()
    const traced = await createTestApp({ EMAIL_LOGIN: 'on', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, undefined, { spanExporter: exporter })
    try {
      const user = await seedUser(traced.app, {}, { verified: true })
      const work = async (email: string) => {
        exporter.reset()
        const answer = await traced.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { email, code: '000000' } })
        expectError(answer, 400, 'Invalid or expired code', 'invalid_code')
        const spans = exporter.getFinishedSpans()
        const request = spans.find((span) => span.kind === 1)!
        // The request limit's counters take a round trip now and then, whoever asks: not this route's work.
        return spans
          .filter((span) => span.parentSpanContext?.spanId === request.spanContext().spanId)
          .map((span) => String(span.attributes['db.query.text']))
          .filter((sql) => !sql.includes('"rate_limits"'))
      }
      const unknown = await work(`nobody_${Date.now()}@example.com`)
      expect(unknown.length).toBeGreaterThanOrEqual(3)
      expect(await work(user.email)).toEqual(unknown)
      expect((await traced.app.inject({ method: 'POST', url: `${V2}/login/email`, payload: { email: user.email } })).statusCode).toBe(202)
      await traced.app.services.emailLogin.settle()
      expect(await work(user.email)).toEqual(unknown)
    } finally {
      await traced.close()
    }
  })

  it('refuses a mail whose account was deactivated or moved to another address since', async () => {
    const deactivated = await seedUser(t.app)
    const toDeactivated = await mailFor(deactivated.email)
    await t.db.updateTable('users').set({ is_active: 0 }).where('id', '=', deactivated.id).execute()
    expectError(await confirm({ token: tokenIn(toDeactivated) }), 400, 'Invalid or expired token')

    const moved = await seedUser(t.app)
    const toOldAddress = await mailFor(moved.email)
    await t.db.updateTable('users').set({ email: `moved_${moved.id}@example.com` }).where('id', '=', moved.id).execute()
    expectError(await confirm({ token: tokenIn(toOldAddress) }), 400, 'Invalid or expired token')
  })

  it('validates both bodies', async () => {
    expectValidationError(await ask('not an email'), ['body', 'email'])
    expectError(await confirm({}), 422)
    expectError(await confirm({ email: 'ada@example.com', code: '12345' }), 422)
    expectError(await confirm({ token: 'x', code: '123456' }), 422)
  })

  it('refuses a confirmation posted from another site (login CSRF)', async () => {
    const refused = await confirm({ token: 'anything' }, { origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' })
    expectError(refused, 403, 'Cross-site request refused', 'cross_site_refused')
    expect(refused.headers['set-cookie']).toBeUndefined()
  })
})

describe('redirect_to and the service sign-in page', () => {
  it('refuses a redirect_to off AUTH_REDIRECT_ORIGINS before anything is mailed', async () => {
    const user = await seedUser(t.app)
    for (const redirect of ['https://evil.example.net/', 'http://localhost:5174/', 'javascript:alert(1)', '/relative', 'http://user:pass@localhost:5173/']) {
      expectError(await ask(user.email, { redirect_to: redirect }), 400, /^Invalid redirect: /, 'invalid_redirect')
    }
    // The refusal names what it saw and the setting that decides it.
    expectError(await ask(user.email, { redirect_to: 'http://localhost:5174/x' }), 400, 'Invalid redirect: http://localhost:5174 is not in AUTH_REDIRECT_ORIGINS')
    expectError(await ask(user.email, { redirect_to: '/relative' }), 400, 'Invalid redirect: redirect_to must be an absolute http or https URL')
    await t.app.services.emailLogin.settle()
    expect(smtp.messages.filter((message) => message.to === user.email)).toHaveLength(0)
  })

  it('opens a page that spends nothing until its button posts the token, then signs the browser in and goes on to redirect_to', async () => {
    const user = await seedUser(t.app)
    const mail = await mailFor(user.email, { redirect_to: `${FRONTEND}/signed-in?from=mail` })
    const link = new URL(/(http:\/\/localhost:8000\/account\/email-login\?\S+)/.exec(mail.text)![1]!)
    expect(link.searchParams.get('redirect_to')).toBe(`${FRONTEND}/signed-in?from=mail`)

    // A scanner following the link twice spends nothing.
    for (let i = 0; i < 2; i++) {
      const opened = await t.app.inject({ url: link.pathname + link.search })
      expect(opened.statusCode).toBe(200)
      expect(opened.headers['content-security-policy']).toContain(`form-action 'self' ${FRONTEND};`)
      expect(opened.body).toContain('name="redirect_to"')
    }

    const token = link.searchParams.get('token')!
    const posted = await t.app.inject({
      method: 'POST',
      url: '/account/email-login',
      payload: new URLSearchParams({ token, redirect_to: link.searchParams.get('redirect_to')! }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:8000', 'sec-fetch-site': 'same-origin' },
    })
    expect(posted.statusCode, posted.body).toBe(303)
    expect(posted.headers.location).toBe(`${FRONTEND}/signed-in?from=mail`)
    const refresh = posted.cookies.find((cookie) => cookie.name === 'refresh_token')
    expect(refresh?.httpOnly).toBe(true)
    // The frontend picks the session up through the cookie.
    const refreshed = await post(`${V2}/refresh`, {}, { cookie: `refresh_token=${refresh!.value}` })
    expect(refreshed.statusCode, refreshed.body).toBe(200)

    const crossSite = await t.app.inject({ method: 'POST', url: '/account/email-login', payload: { token }, headers: { origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' } })
    expect(crossSite.statusCode).toBe(403)
    expect(crossSite.headers['set-cookie']).toBeUndefined()
    const again = await t.app.inject({ method: 'POST', url: '/account/email-login', payload: { token } })
    expect(again.statusCode).toBe(400)
    expect(again.body).toContain('Invalid or expired token')
  })

  it('drops a redirect_to edited into the link to another origin, and signs in on the page itself', async () => {
    const user = await seedUser(t.app)
    const token = tokenIn(await mailFor(user.email))
    const opened = await t.app.inject({ url: `/account/email-login?token=${encodeURIComponent(token)}&redirect_to=${encodeURIComponent('https://evil.example.net/')}` })
    expect(opened.body).not.toContain('evil.example.net')
    expect(opened.headers['content-security-policy']).toContain("form-action 'self';")
    const posted = await t.app.inject({ method: 'POST', url: '/account/email-login', payload: { token, redirect_to: 'https://evil.example.net/' } })
    expect(posted.statusCode).toBe(200)
    expect(posted.headers.location).toBeUndefined()
    expect(posted.body).toContain('You are signed in.')
  })
})

describe('sign-in by email settings', () => {
  it('limits requests per client address and per email (EMAIL_LOGIN_RATE_LIMIT an hour)', async () => {
    const limited = await createTestApp({ SMTP_URL: smtp.url, EMAIL_LOGIN_RATE_LIMIT: '2' })
    try {
      await expectLimitedPerAddressAndEmail(limited.app, `${V2}/login/email`, '10.8.0')
    } finally {
      await limited.close()
    }
  })

  it.skipIf(!inject('redisUrl'))('signs in with the counters in Redis', async () => {
    const setup = await createAppWithSmtp({ REDIS_URL: inject('redisUrl') })
    try {
      const user = await seedUser(setup.t.app)
      await setup.t.app.inject({ method: 'POST', url: `${V2}/login/email`, payload: { email: user.email } })
      const [mail] = await setup.smtp.waitFor(user.email)
      const signedIn = await setup.t.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { email: user.email, code: codeIn(mail!) } })
      expect(signedIn.statusCode, signedIn.body).toBe(200)
    } finally {
      await setup.close()
    }
  })

  it('uses EMAIL_LOGIN_URL for the link, with the token and redirect_to', async () => {
    const setup = await createAppWithSmtp({ EMAIL_LOGIN_URL: `${FRONTEND}/magic?t={token}&next={redirect_to}`, AUTH_REDIRECT_ORIGINS: FRONTEND })
    try {
      const user = await seedUser(setup.t.app)
      await setup.t.app.inject({ method: 'POST', url: `${V2}/login/email`, payload: { email: user.email, redirect_to: `${FRONTEND}/home` } })
      const [mail] = await setup.smtp.waitFor(user.email)
      const link = new URL(/(http:\/\/localhost:5173\/magic\?\S+)/.exec(mail!.text)![1]!)
      expect(link.searchParams.get('next')).toBe(`${FRONTEND}/home`)
      const signedIn = await setup.t.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { token: link.searchParams.get('t') } })
      expect(signedIn.statusCode, signedIn.body).toBe(200)
    } finally {
      await setup.close()
    }
  })

  it('EMAIL_LOGIN=off removes the routes and the page', async () => {
    const off = await createTestApp({ EMAIL_LOGIN: 'off' })
    try {
      expect((await off.app.inject({ method: 'POST', url: `${V2}/login/email`, payload: { email: 'a@example.com' } })).statusCode).toBe(404)
      expect((await off.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { token: 'x' } })).statusCode).toBe(404)
      expect((await off.app.inject({ url: '/account/email-login?token=x' })).statusCode).toBe(404)
    } finally {
      await off.close()
    }
  })
})
