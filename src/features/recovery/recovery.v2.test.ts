// Recovering an account ends what whoever held it may have added, in one routine: a password
// reset shows every way in and ends the passkeys and identities the owner does not keep, with
// every session and API key; an undone email change ends them all. And the first proof of a
// mailbox on an account that never gave one adopts it (account pre-hijacking): someone who signed
// up with the owner's address, or a provider that never vouched for it, keeps nothing — password,
// sessions, keys, passkeys, identities, authenticator app. Mail goes through a real SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { SoftwareAuthenticator } from '../../../test/helpers/authenticator.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { DeliveredMail, TestSmtpServer } from '../../../test/helpers/smtp.js'
import { codeIn, createAppWithSmtp, tokenIn } from '../../../test/helpers/smtp.js'
import { enrolTotp } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V1, V2 } from '../../../test/helpers/users.js'

const ORIGIN = 'http://localhost:8000'
let smtp: TestSmtpServer
let t: TestApp
let close: () => Promise<void>
beforeAll(async () => {
  const setup = await createAppWithSmtp({ PUBLIC_URL: ORIGIN, EMAIL_LOGIN: 'on' })
  smtp = setup.smtp
  t = setup.t
  close = setup.close
})
afterAll(() => close())

const post = (url: string, payload: object = {}, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload, headers })
const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })

/** Waits for the mail to `to` whose subject is `subject` (the newest such). */
async function mailTo(to: string, subject: string): Promise<DeliveredMail> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const found = smtp.messages.filter((message) => message.to === to && message.subject === subject).at(-1)
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no mail "${subject}" to ${to}`)
}

async function registerPasskey(who: { headers: Record<string, string> }, name: string): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
  const options = await post(`${V2}/users/me/passkeys/options`, {}, who.headers)
  expect(options.statusCode, options.body).toBe(200)
  expect((await post(`${V2}/users/me/passkeys`, { response: authenticator.register(options.json()), name }, who.headers)).statusCode).toBe(201)
  return authenticator
}

const passkeySignIn = async (authenticator: SoftwareAuthenticator) => {
  const options = (await post(`${V2}/login/passkey/options`)).json()
  return post(`${V2}/login/passkey`, { response: authenticator.authenticate(options) })
}

/** An identity linked to the user as a provider sign-in would (a provider is not needed to show what recovery does with it). */
async function linkIdentity(userId: number, provider: string): Promise<string> {
  const id = `identity-${provider}-${userId}`
  await t.db.insertInto('user_identities').values({ id, user_id: userId, provider, subject: `subject-${userId}`, email: null, created_at: new Date().toISOString() }).execute()
  return id
}

async function resetLink(email: string): Promise<string> {
  const before = smtp.messages.filter((message) => message.to === email && message.subject === 'Reset your password').length
  expect((await post(`${V2}/password-reset`, { email })).statusCode).toBe(202)
  await t.app.services.account.settle()
  for (let waited = 0; waited < 10_000; waited += 50) {
    const resets = smtp.messages.filter((message) => message.to === email && message.subject === 'Reset your password')
    if (resets.length > before) return tokenIn(resets.at(-1)!)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('no reset mail')
}

describe('a password reset', () => {
  it('shows every way in, and ends the passkeys and identities the owner does not keep, every session and every API key', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    const laptop = await registerPasskey(owner, 'Laptop')
    const planted = await registerPasskey(owner, 'Planted by someone')
    await linkIdentity(owner.user.id, 'corp')
    const key = (await post(`${V2}/api-keys/`, { name: 'k', scopes: ['read'] }, owner.headers)).json().key as string

    const token = await resetLink(owner.user.email)
    const ways = await post(`${V2}/password-reset/ways-in`, { token })
    expect(ways.statusCode, ways.body).toBe(200)
    const listed = ways.json() as { passkeys: { id: string; name: string }[]; identities: { id: string; provider: string }[]; password: boolean; api_keys: number; sessions: number; authenticator_app: boolean }
    expect(listed).toMatchObject({ password: true, api_keys: 1, sessions: 1, authenticator_app: false })
    expect(listed.passkeys.map((passkey) => passkey.name).sort()).toEqual(['Laptop', 'Planted by someone'])
    expect(listed.identities.map((identity) => identity.provider)).toEqual(['corp'])
    const kept = listed.passkeys.find((passkey) => passkey.name === 'Laptop')!.id

    const reset = await post(`${V2}/password-reset/confirm`, { token, new_password: 'a brand new secret 7', keep: { passkeys: [kept] } })
    expect(reset.statusCode, reset.body).toBe(200)
    expect(reset.json()).toEqual({
      message: 'Password reset',
      ended: { sessions: 1, api_keys: 1, passkeys: ['Planted by someone'], identities: ['corp'], password: false, second_factors: false },
    })
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: owner.headers })).statusCode).toBe(401)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': key } })).statusCode).toBe(401)
    expectError(await passkeySignIn(planted), 401, 'Invalid passkey')
    expect((await passkeySignIn(laptop)).statusCode).toBe(200)
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', '=', owner.user.id).execute()).toEqual([])

    const mail = await mailTo(owner.user.email, 'Ways into your account were ended')
    expect(mail.text).toContain('Your password was reset.')
    expect(mail.text).toContain('the passkey "Planted by someone"')
    expect(mail.text).toContain('sign-in with corp')
    expect(mail.text).toMatch(/Still working: your password, the passkey "Laptop"/)
    const events = await t.db.selectFrom('security_events').select('type').where('user_id', '=', owner.user.id).execute()
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['ways_in_ended', 'password_reset', 'passkey_removed', 'identity_unlinked']))
  })

  it('ends every passkey and identity through version 1, whose reset takes no choice, and keeps what is ticked on the page', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    await registerPasskey(owner, 'Phone')
    expect((await post(`${V1}/password-reset/confirm`, { token: await resetLink(owner.user.email), new_password: 'a brand new secret 7' })).statusCode).toBe(200)
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', owner.user.id).execute()).toEqual([])

    const other = await seedAndLogin(t.app, {}, { verified: true })
    await registerPasskey(other, 'Tablet')
    const token = await resetLink(other.user.email)
    const page = await t.app.inject({ url: `/account/reset-password?token=${encodeURIComponent(token)}` })
    expect(page.body).toContain('Passkey &quot;Tablet&quot;')
    expect(page.body).toContain('name="keep_passkey"')
    const [passkey] = await t.db.selectFrom('passkeys').select('id').where('user_id', '=', other.user.id).execute()
    const submitted = await t.app.inject({
      method: 'POST',
      url: '/account/reset-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, new_password: 'a brand new secret 7', keep_passkey: passkey!.id }).toString(),
    })
    expect(submitted.statusCode, submitted.body).toBe(200)
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', other.user.id).execute()).toEqual([passkey])
  })

  it('on an account that never proved its mailbox, ends the authenticator app too', async () => {
    const owner = await seedAndLogin(t.app)
    await enrolTotp(t.app, owner.headers)
    const reset = await post(`${V2}/password-reset/confirm`, { token: await resetLink(owner.user.email), new_password: 'a brand new secret 7' })
    expect(reset.json().ended).toMatchObject({ second_factors: true, password: false })
    // The new password signs in without a second factor: whoever set the authenticator up no longer holds the account.
    expect((await post(`${V2}/login`, { username: owner.user.username, password: 'a brand new secret 7' })).statusCode).toBe(200)
  })
})

describe('account pre-hijacking', () => {
  it("an attacker who signed up with the owner's address keeps nothing once the owner signs in by email", async () => {
    const fields = userFields()
    // The attacker signs up first, with the owner's address and a password of their own, and digs in.
    const signedUp = await post(`${V2}/signup`, { ...fields, accept_terms: true })
    expect(signedUp.statusCode, signedUp.body).toBe(201)
    const attacker: LoggedIn = { user: { ...signedUp.json(), password: fields.password }, accessToken: signedUp.json().tokens.access_token, refreshToken: signedUp.json().tokens.refresh_token, headers: bearer(signedUp.json().tokens.access_token) }
    const key = (await post(`${V2}/api-keys/`, { name: 'kept', scopes: ['read', 'write'] }, attacker.headers)).json().key as string
    const passkey = await registerPasskey(attacker, 'Attacker key')
    await enrolTotp(t.app, attacker.headers)
    await linkIdentity(attacker.user.id, 'corp')

    // The owner signs in with a code mailed to their address.
    expect((await post(`${V2}/login/email`, { email: fields.email })).statusCode).toBe(202)
    const signedIn = await post(`${V2}/login/email/confirm`, { email: fields.email, code: codeIn(await mailTo(fields.email, 'Your sign-in link and code')) })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(signedIn.json().access_token) })).json()).toMatchObject({ email: fields.email, is_verified: true })

    expectError(await post(`${V2}/login`, { username: fields.username, password: fields.password }), 401, 'Incorrect username or password')
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: attacker.headers })).statusCode).toBe(401)
    expect((await post(`${V2}/refresh`, { refresh_token: attacker.refreshToken })).statusCode).toBe(401)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: { 'x-api-key': key } })).statusCode).toBe(401)
    expectError(await passkeySignIn(passkey), 401, 'Invalid passkey')
    expect((await t.app.inject({ url: `${V2}/users/me/identities`, headers: bearer(signedIn.json().access_token) })).json()).toEqual([])
    expect((await t.app.inject({ url: `${V2}/users/me/mfa`, headers: bearer(signedIn.json().access_token) })).json()).toMatchObject({ methods: [] })
    const mail = await mailTo(fields.email, 'Ways into your account were ended')
    expect(mail.text).toContain('the first proof that this address is yours')
    expect(mail.text).toContain('the password')
  })

  it('the browser that signed up keeps what it added when it signs in by email (its device cookie shows it was there)', async () => {
    const fields = userFields()
    const signedUp = await post(`${V2}/signup`, { ...fields, accept_terms: true })
    const device = signedUp.cookies.find((cookie) => cookie.name === 'device')!.value
    expect((await post(`${V2}/login/email`, { email: fields.email })).statusCode).toBe(202)
    const code = codeIn(await mailTo(fields.email, 'Your sign-in link and code'))
    const signedIn = await t.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { email: fields.email, code }, cookies: { device } })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect((await post(`${V2}/login`, { username: fields.username, password: fields.password })).statusCode).toBe(200)
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: bearer(signedUp.json().tokens.access_token) })).statusCode).toBe(200)
    // A device cookie of another account proves nothing about this one.
    const other = userFields()
    await post(`${V2}/signup`, { ...other, accept_terms: true })
    expect((await post(`${V2}/login/email`, { email: other.email })).statusCode).toBe(202)
    const otherCode = codeIn(await mailTo(other.email, 'Your sign-in link and code'))
    expect((await t.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { email: other.email, code: otherCode }, cookies: { device } })).statusCode).toBe(200)
    expectError(await post(`${V2}/login`, { username: other.username, password: other.password }), 401)
  })

  it('an identity linked before the mailbox was ever proven goes at the first email sign-in; a proven account keeps its ways in', async () => {
    const unproven = await seedAndLogin(t.app)
    await linkIdentity(unproven.user.id, 'corp')
    expect((await post(`${V2}/login/email`, { email: unproven.user.email })).statusCode).toBe(202)
    const code = codeIn(await mailTo(unproven.user.email, 'Your sign-in link and code'))
    expect((await post(`${V2}/login/email/confirm`, { email: unproven.user.email, code })).statusCode).toBe(200)
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', '=', unproven.user.id).execute()).toEqual([])

    const proven = await seedAndLogin(t.app, {}, { verified: true })
    await registerPasskey(proven, 'Mine')
    await linkIdentity(proven.user.id, 'corp')
    expect((await post(`${V2}/login/email`, { email: proven.user.email })).statusCode).toBe(202)
    const provenCode = codeIn(await mailTo(proven.user.email, 'Your sign-in link and code'))
    // Its passkey is a second factor: the sign-in steps up, and nothing ended.
    expectError(await post(`${V2}/login/email/confirm`, { email: proven.user.email, code: provenCode }), 401, undefined, 'mfa_required')
    expect((await post(`${V2}/login`, { username: proven.user.username, password: proven.user.password })).json().code).toBe('mfa_required')
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', '=', proven.user.id).execute()).toHaveLength(1)
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', proven.user.id).execute()).toHaveLength(1)
  })
})

describe('undoing an email change', () => {
  it('ends every session, key, passkey and identity whoever moved the email may have added', async () => {
    const owner = await seedAndLogin(t.app, {}, { verified: true })
    await registerPasskey(owner, 'Added by the intruder')
    await linkIdentity(owner.user.id, 'corp')
    const moved = await t.app.inject({ method: 'PATCH', url: `${V2}/users/${owner.user.id}`, headers: owner.headers, payload: { email: `moved-${Date.now()}@example.com`, current_password: owner.user.password } })
    expect(moved.statusCode, moved.body).toBe(200)
    const notice = await mailTo(owner.user.email, 'Your email address was changed')
    const undo = /undo-email-change\?token=([A-Za-z0-9_%-]+)/.exec(notice.text)![1]!
    expect((await post(`${V2}/email-change/undo`, { token: decodeURIComponent(undo) })).statusCode).toBe(200)
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', owner.user.id).execute()).toEqual([])
    expect(await t.db.selectFrom('user_identities').select('id').where('user_id', '=', owner.user.id).execute()).toEqual([])
    expect((await mailTo(owner.user.email, 'Ways into your account were ended')).text).toContain('The change of your email address was undone.')
  })
})
