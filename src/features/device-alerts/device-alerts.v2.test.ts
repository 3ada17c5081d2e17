// New-device sign-in alerts over a real SMTP server: none for the account's first device (the
// sign-in after sign-up), one for a new browser on a new network, none again for it, none for a
// browser showing the account's device cookie; the mail's "this wasn't me" link ends that session
// and every other and mails a password reset; NEW_DEVICE_ALERTS=off sends nothing; with
// GEOIP_DATABASE (a MaxMind database the test writes) the mail names the city too.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import { writeMmdb } from '../../../test/helpers/mmdb.js'
import type { TestSmtpServer } from '../../../test/helpers/smtp.js'
import { createAppWithSmtp } from '../../../test/helpers/smtp.js'
import { seedUser, V2 } from '../../../test/helpers/users.js'
import { drained } from '../../../test/helpers/wait.js'

const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'

let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, t, close } = await createAppWithSmtp({ LOGIN_RATE_LIMIT: '1000', PUBLIC_URL: 'http://localhost:8000' }))
})
afterAll(() => close())

type Account = Awaited<ReturnType<typeof seedUser>>

/** A password sign-in from `userAgent` at `address`, with the device cookie `device` when given. */
function signIn(app: TestApp, who: Account, userAgent: string, address: string, device?: string) {
  return app.app.inject({
    method: 'POST',
    url: `${V2}/login`,
    payload: { username: who.username, password: who.password },
    headers: { 'user-agent': userAgent, ...(device ? { cookie: `device=${device}` } : {}) },
    remoteAddress: address,
  })
}

const deviceCookie = (answer: Awaited<ReturnType<typeof signIn>>) => answer.cookies.find((cookie) => cookie.name === 'device')!.value
const alertsTo = (email: string) => smtp.messages.filter((message) => message.to === email && message.subject === 'New sign-in to your account')

describe('new-device alerts', () => {
  it("alerts once for a new browser on a new network, never for the account's first device or a browser with its device cookie", async () => {
    const who = await seedUser(t.app)
    const first = await signIn(t, who, CHROME_WINDOWS, '198.51.100.20')
    expect(first.statusCode).toBe(200)
    // The same browser with its cookie, from elsewhere, and another browser showing that cookie: known.
    expect((await signIn(t, who, CHROME_WINDOWS, '192.0.2.1', deviceCookie(first))).statusCode).toBe(200)
    expect((await signIn(t, who, SAFARI_IPHONE, '192.0.2.2', deviceCookie(first))).statusCode).toBe(200)

    expect((await signIn(t, who, FIREFOX_LINUX, '203.0.113.77')).statusCode).toBe(200)
    const [alert] = await smtp.waitFor(who.email, 1)
    expect(alert!.subject).toBe('New sign-in to your account')
    expect(alert!.text).toContain('How: with a password')
    expect(alert!.text).toContain('Browser: Firefox on Linux (desktop)')
    expect(alert!.text).toContain('Network: 203.0.113.0/24')
    expect(alert!.text).not.toContain('203.0.113.77')
    expect(alert!.text).toMatch(/http:\/\/localhost:8000\/account\/not-me\?token=/)

    // The same new browser again, without a cookie: it is known now.
    expect((await signIn(t, who, FIREFOX_LINUX, '203.0.113.78')).statusCode).toBe(200)
    await drained(t.app, 'mail')
    expect(alertsTo(who.email)).toHaveLength(1)
    const devices = await t.db.selectFrom('known_devices').select(['browser', 'os', 'platform']).where('user_id', '=', who.id).orderBy('first_seen_at').execute()
    expect(devices).toEqual(expect.arrayContaining([{ browser: 'Chrome', os: 'Windows', platform: 'desktop' }, { browser: 'Firefox', os: 'Linux', platform: 'desktop' }, { browser: 'Mobile Safari', os: 'iOS', platform: 'mobile' }]))
  })

  it('names the /48 of an IPv6 address, never the address', async () => {
    const who = await seedUser(t.app)
    expect((await signIn(t, who, CHROME_WINDOWS, '198.51.100.50')).statusCode).toBe(200)
    expect((await signIn(t, who, FIREFOX_LINUX, '2001:db8:1:2::5')).statusCode).toBe(200)
    const [alert] = await smtp.waitFor(who.email, 1)
    expect(alert!.text).toContain('Network: 2001:db8:1::/48')
    expect(alert!.text).not.toContain('2001:db8:1:2::5')
  })

  it("ends that session and every other with \"this wasn't me\", once, and mails a password reset", async () => {
    const who = await seedUser(t.app)
    const mine = await signIn(t, who, CHROME_WINDOWS, '198.51.100.30')
    const theirs = await signIn(t, who, FIREFOX_LINUX, '203.0.113.90')
    const [alert] = await smtp.waitFor(who.email, 1)
    const token = new URL(/(http\S+not-me\S+)/.exec(alert!.text)![1]!).searchParams.get('token')!
    expect((await t.app.inject({ url: `/account/not-me?token=${encodeURIComponent(token)}` })).body).toContain('Sign everything out')
    const answered = await t.app.inject({ method: 'POST', url: `${V2}/devices/not-me`, payload: { token } })
    expect(answered.statusCode, answered.body).toBe(200)
    for (const session of [mine, theirs]) {
      expect((await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${session.json().access_token}` } })).statusCode).toBe(401)
    }
    const mails = await smtp.waitFor(who.email, 2)
    expect(mails[1]!.subject).toMatch(/reset/i)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/devices/not-me`, payload: { token } }), 400, undefined, 'invalid_token')
    const types = (await t.db.selectFrom('security_events').select('type').where('user_id', '=', who.id).execute()).map((row) => row.type)
    expect(types).toEqual(expect.arrayContaining(['new_device_alerted', 'new_device_reported']))
  })
})

describe('with NEW_DEVICE_ALERTS=off', () => {
  let quiet: TestApp
  beforeAll(async () => {
    quiet = await createTestApp({ NEW_DEVICE_ALERTS: 'off' })
  })
  afterAll(() => quiet.close())

  it('records and mails nothing', async () => {
    const who = await seedUser(quiet.app)
    expect((await signIn(quiet, who, CHROME_WINDOWS, '198.51.100.40')).statusCode).toBe(200)
    expect((await signIn(quiet, who, FIREFOX_LINUX, '203.0.113.40')).statusCode).toBe(200)
    expect(await quiet.db.selectFrom('known_devices').selectAll().where('user_id', '=', who.id).execute()).toEqual([])
    expect(await quiet.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', who.email).execute()).toEqual([])
  })
})

describe('with GEOIP_DATABASE', () => {
  let located: TestApp
  let folder: string
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'ups-geoip-'))
    writeMmdb(path.join(folder, 'city.mmdb'), [
      { network: '203.0.113.0/24', city: { en: 'Munich', de: 'München', fr: 'Munich', es: 'Múnich' }, country: { iso_code: 'DE', en: 'Germany', de: 'Deutschland', fr: 'Allemagne', es: 'Alemania' } },
    ])
    located = await createTestApp({ GEOIP_DATABASE: path.join(folder, 'city.mmdb') })
  })
  afterAll(async () => {
    await located.close()
    await rm(folder, { recursive: true, force: true })
  })

  const alertText = async (who: Account) => {
    const [mail] = await located.db.selectFrom('mail_outbox').select('text_body').where('recipient', '=', who.email).execute()
    return mail?.text_body ?? ''
  }

  it('names the city and country the database gives the address, in the recipient\'s language, with the network and never the address', async () => {
    const who = await seedUser(located.app)
    expect((await signIn(located, who, CHROME_WINDOWS, '198.51.100.60')).statusCode).toBe(200)
    expect((await signIn(located, who, FIREFOX_LINUX, '203.0.113.61')).statusCode).toBe(200)
    expect(await alertText(who)).toContain('Network: 203.0.113.0/24, near Munich, Germany')
    expect(await alertText(who)).not.toContain('203.0.113.61')
    const event = await located.db.selectFrom('security_events').select('details').where('user_id', '=', who.id).where('type', '=', 'new_device_alerted').executeTakeFirstOrThrow()
    expect(JSON.parse(String(event.details))).toMatchObject({ network: '203.0.113.0/24', place: 'Munich, Germany' })

    const german = await seedUser(located.app)
    await located.db.updateTable('users').set({ locale: 'de-AT' }).where('id', '=', german.id).execute()
    expect((await signIn(located, german, CHROME_WINDOWS, '198.51.100.62')).statusCode).toBe(200)
    expect((await signIn(located, german, FIREFOX_LINUX, '203.0.113.63')).statusCode).toBe(200)
    expect(await alertText(german)).toContain('Netzwerk: 203.0.113.0/24, in der Nähe von München, Deutschland')

    // An address the database does not know: the network alone.
    const elsewhere = await seedUser(located.app)
    expect((await signIn(located, elsewhere, CHROME_WINDOWS, '198.51.100.64')).statusCode).toBe(200)
    expect((await signIn(located, elsewhere, FIREFOX_LINUX, '192.0.2.65')).statusCode).toBe(200)
    expect(await alertText(elsewhere)).toMatch(/Network: 192\.0\.2\.0\/24\n/)
  })

  it('refuses to start on a file that is not a MaxMind database', async () => {
    const broken = path.join(folder, 'broken.mmdb')
    await writeFile(broken, 'not a database')
    await expect(createTestApp({ GEOIP_DATABASE: broken })).rejects.toThrow(/GEOIP_DATABASE .* is not a MaxMind database/)
  })
})
