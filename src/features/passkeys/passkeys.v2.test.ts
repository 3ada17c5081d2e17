// Passkeys over HTTP with a software authenticator (ES256, attestation none; test/helpers/
// authenticator.ts): registration bound to its challenge, origin and user verification; sign-in
// with and without a username, complete without a second factor; a cloned authenticator's
// counter refused and logged; a passkey as the second factor after a password; renaming and
// removing, never the last way in; a superuser's reset; a second app instance on one database.
// Chromium's virtual authenticator drives the same routes on the service's page (test/browser).
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { SoftwareAuthenticator } from '../../../test/helpers/authenticator.js'
import { expectError } from '../../../test/helpers/expect.js'
import { enrolTotp } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'

const ORIGIN = 'http://localhost:8000'
let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: ORIGIN, WEBAUTHN_RP_NAME: 'Example App' })
})
afterAll(() => t.close())

const post = (url: string, payload: object, headers: Record<string, string> = {}, app: FastifyInstance = t.app) => app.inject({ method: 'POST', url, payload, headers })
const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })
const eventsOf = async (userId: number) =>
  (await t.db.selectFrom('security_events').select(['type', 'method']).where('user_id', '=', userId).orderBy('created_at').execute()).map((row) => `${row.type}:${row.method ?? ''}`)

/** Registers a new passkey for `who` through the API; returns the authenticator holding it. */
async function registerPasskey(who: LoggedIn, name = 'Laptop', app: FastifyInstance = t.app): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
  const options = (await post(`${V2}/users/me/passkeys/options`, {}, who.headers, app)).json()
  const registered = await post(`${V2}/users/me/passkeys`, { response: authenticator.register(options), name }, who.headers, app)
  expect(registered.statusCode, registered.body).toBe(201)
  return authenticator
}

async function signInOptions(username?: string, app: FastifyInstance = t.app) {
  const options = await post(`${V2}/login/passkey/options`, username === undefined ? {} : { username }, {}, app)
  expect(options.statusCode, options.body).toBe(200)
  return options.json() as { challenge: string; allowCredentials?: { id: string }[]; userVerification: string; rpId: string }
}

const signIn = (response: object, app: FastifyInstance = t.app) => post(`${V2}/login/passkey`, { response }, {}, app)

describe('registering a passkey', () => {
  it('hands out creation options for this relying party, and stores the passkey the answer proves', async () => {
    const who = await seedAndLogin(t.app)
    const options = (await post(`${V2}/users/me/passkeys/options`, {}, who.headers)).json()
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Example App' },
      user: { name: who.user.username },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      excludeCredentials: [],
    })
    const authenticator = new SoftwareAuthenticator('localhost', ORIGIN)
    const registered = await post(`${V2}/users/me/passkeys`, { response: authenticator.register(options), name: 'Laptop' }, who.headers)
    expect(registered.statusCode, registered.body).toBe(201)
    expect(registered.json()).toEqual({ id: expect.any(String), name: 'Laptop', device_type: 'singleDevice', backed_up: false, created_at: expect.any(String), last_used_at: null })
    const listed = (await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json()
    expect(listed).toEqual([registered.json()])
    // Its own passkeys are excluded next time, and the same credential is refused.
    const again = (await post(`${V2}/users/me/passkeys/options`, {}, who.headers)).json()
    expect(again.excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.credentialId.toString('base64url') })])
    expectError(await post(`${V2}/users/me/passkeys`, { response: authenticator.register(again), name: 'Twice' }, who.headers), 409, undefined, 'passkey_exists')
    expect(await eventsOf(who.user.id)).toContain('passkey_added:passkey')
  })

  it("refuses an answer to a spent, expired or another user's challenge, from another origin, or without user verification", async () => {
    const who = await seedAndLogin(t.app)
    const other = await seedAndLogin(t.app)
    const optionsFor = async (caller: LoggedIn) => (await post(`${V2}/users/me/passkeys/options`, {}, caller.headers)).json()
    const register = (caller: LoggedIn, response: object) => post(`${V2}/users/me/passkeys`, { response, name: 'x' }, caller.headers)

    const spent = await optionsFor(who)
    expect((await register(who, new SoftwareAuthenticator('localhost', ORIGIN).register(spent))).statusCode).toBe(201)
    expectError(await register(who, new SoftwareAuthenticator('localhost', ORIGIN).register(spent)), 400, 'Invalid passkey', 'invalid_passkey')
    expectError(await register(who, new SoftwareAuthenticator('localhost', ORIGIN).register(await optionsFor(other))), 400, undefined, 'invalid_passkey')
    // A refusal a setting decides names it, and what it saw.
    expectError(
      await register(who, new SoftwareAuthenticator('localhost', 'http://evil.example').register(await optionsFor(who))),
      400,
      'Invalid passkey: the answer came from http://evil.example, which WEBAUTHN_ORIGINS does not list',
      'invalid_passkey',
    )
    expectError(
      await register(who, new SoftwareAuthenticator('evil.example', ORIGIN).register(await optionsFor(who))),
      400,
      'Invalid passkey: the passkey is for another relying party than WEBAUTHN_RP_ID (localhost)',
      'invalid_passkey',
    )
    const unverified = new SoftwareAuthenticator('localhost', ORIGIN)
    unverified.verifiesUser = false
    expectError(await register(who, unverified.register(await optionsFor(who))), 400, undefined, 'invalid_passkey')
    const late = await optionsFor(who)
    await t.db.updateTable('one_time_secrets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('purpose', '=', 'webauthn_register').where('used_at', 'is', null).execute()
    expectError(await register(who, new SoftwareAuthenticator('localhost', ORIGIN).register(late)), 400, undefined, 'invalid_passkey')
    expect((await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json()).toHaveLength(1)
  })
})

describe('signing in with a passkey', () => {
  it('signs in without a username (a discoverable passkey), completely: no second factor even with TOTP on', async () => {
    const who = await seedAndLogin(t.app)
    const authenticator = await registerPasskey(who)
    await enrolTotp(t.app, who.headers)
    const options = await signInOptions()
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required', allowCredentials: [] })
    const response = authenticator.authenticate(options)
    const signedIn = await signIn(response)
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect(signedIn.cookies.map((cookie) => cookie.name).sort()).toEqual(['device', 'refresh_token'])
    const me = await t.app.inject({ url: `${V2}/users/me`, headers: bearer(signedIn.json().access_token) })
    expect(me.json().id).toBe(who.user.id)
    // The challenge worked once.
    expectError(await signIn(response), 401, 'Invalid passkey', 'invalid_passkey')
    expect(await eventsOf(who.user.id)).toContain('login_succeeded:passkey')
    const [passkey] = (await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json()
    expect(passkey.last_used_at).not.toBeNull()
  })

  it("with a username, offers that account's passkeys, and the same answer for a name nobody has", async () => {
    const who = await seedAndLogin(t.app)
    const stranger = await seedAndLogin(t.app)
    const authenticator = await registerPasskey(who)
    const strangers = await registerPasskey(stranger)
    const options = await signInOptions(who.user.username)
    expect(options.allowCredentials?.map((credential) => credential.id)).toEqual([authenticator.credentialId.toString('base64url')])
    expect((await signInOptions('nobody-has-this-name')).allowCredentials).toEqual([])
    // A challenge made for one account is not answered by another account's passkey.
    expectError(await signIn(strangers.authenticate(await signInOptions(who.user.username))), 401, undefined, 'invalid_passkey')
    expect((await signIn(authenticator.authenticate(options))).statusCode).toBe(200)
  })

  it("refuses a cloned authenticator whose counter does not move forward, logs it, and keeps the original's working", async () => {
    const who = await seedAndLogin(t.app)
    const original = await registerPasskey(who)
    const clone = original.clone()
    expect((await signIn(original.authenticate(await signInOptions()))).statusCode).toBe(200)
    expect((await signIn(original.authenticate(await signInOptions()))).statusCode).toBe(200)
    // The clone's counter is behind the original's.
    expectError(await signIn(clone.authenticate(await signInOptions())), 401, 'Invalid passkey', 'invalid_passkey')
    expect(await eventsOf(who.user.id)).toContain('passkey_counter_refused:passkey')
    expect((await signIn(original.authenticate(await signInOptions()))).statusCode).toBe(200)
  })

  it('refuses a forged signature and an unknown credential, and logs the failure', async () => {
    const who = await seedAndLogin(t.app)
    const authenticator = await registerPasskey(who)
    const response = authenticator.authenticate(await signInOptions())
    const forged = { ...response, response: { ...response.response, signature: Buffer.from('not a signature').toString('base64url') } }
    expectError(await signIn(forged), 401, undefined, 'invalid_passkey')
    expectError(await signIn(new SoftwareAuthenticator('localhost', ORIGIN).authenticate(await signInOptions())), 401, undefined, 'invalid_passkey')
    expect(await eventsOf(who.user.id)).toContain('login_failed:passkey')
  })

  it('refuses a signed-in page of another site (login CSRF)', async () => {
    const who = await seedAndLogin(t.app)
    const authenticator = await registerPasskey(who)
    const response = authenticator.authenticate(await signInOptions())
    expectError(await post(`${V2}/login/passkey`, { response }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), 403, undefined, 'cross_site_refused')
  })
})

describe('a passkey as the second factor', () => {
  it('is asked for after a password, with options bound to that sign-in', async () => {
    const who = await seedAndLogin(t.app)
    const authenticator = await registerPasskey(who)
    const login = async () => {
      const answer = await post(`${V2}/login`, { username: who.user.username, password: who.user.password })
      expectError(answer, 401, 'Second factor required', 'mfa_required')
      expect(answer.json().methods).toEqual(['passkey'])
      return answer.json().mfa_token as string
    }
    const token = await login()
    const options = await post(`${V2}/login/mfa/passkey/options`, { mfa_token: token })
    expect(options.statusCode, options.body).toBe(200)
    expect(options.json().allowCredentials.map((credential: { id: string }) => credential.id)).toEqual([authenticator.credentialId.toString('base64url')])
    // Options made for another sign-in do not finish this one.
    const otherOptions = (await post(`${V2}/login/mfa/passkey/options`, { mfa_token: await login() })).json()
    expectError(await post(`${V2}/login/mfa`, { mfa_token: token, passkey_response: authenticator.authenticate(otherOptions) }), 401, undefined, 'invalid_passkey')
    // Nor do sign-in options.
    expectError(await post(`${V2}/login/mfa`, { mfa_token: token, passkey_response: authenticator.authenticate(await signInOptions()) }), 401, undefined, 'invalid_passkey')
    const done = await post(`${V2}/login/mfa`, { mfa_token: token, passkey_response: authenticator.authenticate(options.json()) })
    expect(done.statusCode, done.body).toBe(200)
    expect(await eventsOf(who.user.id)).toEqual(expect.arrayContaining(['mfa_verified:passkey', 'mfa_failed:passkey', 'login_succeeded:password']))
    expectError(await post(`${V2}/login/mfa/passkey/options`, { mfa_token: token }), 401, undefined, 'invalid_mfa_token')
  })

  it('counts toward REQUIRE_MFA_FOR_SUPERUSERS', async () => {
    const strict = await createTestApp({ PUBLIC_URL: ORIGIN, REQUIRE_MFA_FOR_SUPERUSERS: 'true' })
    try {
      const admin = await seedAndLogin(strict.app, {}, { superuser: true })
      expectError(await strict.app.inject({ url: `${V2}/admin/overview`, headers: admin.headers }), 403, undefined, 'mfa_enrolment_required')
      await registerPasskey(admin, 'Key', strict.app)
      expect((await strict.app.inject({ url: `${V2}/admin/overview`, headers: admin.headers })).statusCode).toBe(200)
    } finally {
      await strict.close()
    }
  })
})

describe('managing passkeys', () => {
  it('renames and removes them, but never the last way to sign in', async () => {
    const who = await seedAndLogin(t.app)
    await registerPasskey(who, 'Laptop')
    await registerPasskey(who, 'Phone')
    const [laptop, phone] = (await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json() as { id: string; name: string }[]
    const renamed = await t.app.inject({ method: 'PATCH', url: `${V2}/users/me/passkeys/${laptop!.id}`, headers: who.headers, payload: { name: 'Work laptop' } })
    expect(renamed.json()).toMatchObject({ id: laptop!.id, name: 'Work laptop' })
    const other = await seedAndLogin(t.app)
    expectError(await t.app.inject({ method: 'PATCH', url: `${V2}/users/me/passkeys/${laptop!.id}`, headers: other.headers, payload: { name: 'Mine now' } }), 404, 'Passkey not found', 'passkey_not_found')
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${laptop!.id}`, headers: other.headers }), 404, undefined, 'passkey_not_found')

    // An account with no password (made by a provider, say): the passkeys are its ways in.
    await t.db.updateTable('users').set({ hashed_password: '!' }).where('id', '=', who.user.id).execute()
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${laptop!.id}`, headers: who.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${phone!.id}`, headers: who.headers }), 409, 'Cannot remove the last way to sign in', 'last_sign_in_method')
    expect(await eventsOf(who.user.id)).toContain('passkey_removed:passkey')
  })

  it('keeps one way in when all of them are removed at once', async () => {
    const who = await seedAndLogin(t.app)
    const count = 6
    for (let index = 0; index < count; index++) await registerPasskey(who, `Key ${index}`)
    await t.db.updateTable('users').set({ hashed_password: '!' }).where('id', '=', who.user.id).execute()
    const passkeys = (await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json() as { id: string }[]
    // The route once before (its schemas are compiled on first use), so that the removals run side by side.
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/no-such-passkey`, headers: who.headers })).statusCode).toBe(404)
    const removals = await Promise.all(passkeys.map(({ id }) => t.app.inject({ method: 'DELETE', url: `${V2}/users/me/passkeys/${id}`, headers: who.headers })))
    expect(removals.map((response) => response.statusCode).sort()).toEqual([...Array<number>(count - 1).fill(200), 409])
    expect((await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: who.headers })).json()).toHaveLength(1)
  })

  it("goes with a superuser's reset of the user's second factors", async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const who = await seedAndLogin(t.app)
    await registerPasskey(who)
    expect((await t.app.inject({ url: `${V2}/admin/users/${who.user.id}/mfa`, headers: admin.headers })).json()).toMatchObject({ passkeys: 1, methods: ['passkey'] })
    expect((await t.app.inject({ method: 'DELETE', url: `${V2}/admin/users/${who.user.id}/mfa`, headers: admin.headers })).statusCode).toBe(200)
    expect((await post(`${V2}/login`, { username: who.user.username, password: who.user.password })).statusCode).toBe(200)
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', who.user.id).execute()).toEqual([])
  })

  it('is refused to API keys', async () => {
    const who = await seedAndLogin(t.app)
    const key = (await post(`${V2}/api-keys/`, { name: 'k', scopes: ['read', 'write'] }, who.headers)).json().key as string
    expectError(await post(`${V2}/users/me/passkeys/options`, {}, { 'x-api-key': key }), 403, undefined, 'api_key_not_allowed')
    expectError(await t.app.inject({ url: `${V2}/users/me/passkeys`, headers: { 'x-api-key': key } }), 403, undefined, 'api_key_not_allowed')
  })
})

describe('across app instances', () => {
  it('answers at a second instance a challenge the first one made, once', async () => {
    const config = loadConfig({ ...t.env })
    const second = await buildApp({ config, secretKey: config.secretKey ?? '', prepare: false })
    await second.ready()
    try {
      const who = await seedAndLogin(t.app)
      const authenticator = await registerPasskey(who)
      const response = authenticator.authenticate(await signInOptions(undefined, t.app))
      const [a, b] = await Promise.all([signIn(response, second), signIn(response, t.app)])
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 401])
    } finally {
      await second.close()
    }
  })
})
