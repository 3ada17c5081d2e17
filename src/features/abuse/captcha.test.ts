// The doors' CAPTCHA against a local verifier speaking the providers' siteverify protocol: every
// door asks in `always` mode and takes a good token (header or body) once; `adaptive` asks only
// once risk is raised and stops asking after the window; confirmations, refreshes, token
// exchanges and second steps are never asked; and every route anyone may send a change to names
// its door or says it is none.
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ApiError, createClient } from '../../../clients/typescript/src/index.js'
import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LocalVerifier } from '../../../test/helpers/captcha-verifier.js'
import { startCaptchaVerifier, TEST_SECRET } from '../../../test/helpers/captcha-verifier.js'
import { expectError } from '../../../test/helpers/expect.js'
import { enrolTotp } from '../../../test/helpers/totp.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedUser, userFields, V1, V2 } from '../../../test/helpers/users.js'
import { waitFor } from '../../../test/helpers/wait.js'
import { DOORS, PASSWORD_DOORS } from './doors.js'
import { networkOf } from './risk.js'
import { abuseSettings } from './settings.js'

let verifier: LocalVerifier
let tokens = 0
/** A token the verifier passes, once. */
const good = () => `pass-${++tokens}`

beforeAll(async () => {
  verifier = await startCaptchaVerifier()
})
afterAll(() => verifier.close())

const captchaEnv = (mode: string, more: Record<string, string> = {}) => ({
  CAPTCHA_PROVIDER: 'turnstile',
  CAPTCHA_SECRET: TEST_SECRET,
  CAPTCHA_SITE_KEY: 'site-key-for-tests',
  CAPTCHA_VERIFY_URL: verifier.url,
  CAPTCHA_MODE: mode,
  CAPTCHA_TIMEOUT_MS: '500',
  ...more,
})

function expectAsked(response: LightMyRequestResponse, code = 'captcha_required'): void {
  expectError(response, 400, code === 'captcha_required' ? /^Solve the CAPTCHA and send its token \(CAPTCHA_MODE=(always|adaptive)\)$/ : undefined, code)
  expect(response.json()).toMatchObject({ provider: 'turnstile', site_key: 'site-key-for-tests' })
}

const notAsked = (response: LightMyRequestResponse) => expect(['captcha_required', 'captcha_failed']).not.toContain((response.json() as { code?: string }).code)

describe('always: every door asks', () => {
  let t: TestApp
  let owner: LoggedIn
  let org: { slug: string }
  /** A user, logged in through the door with a good token. */
  const seedAndLoginPastTheDoor = async (options: { superuser?: boolean } = {}): Promise<LoggedIn> => {
    const user = await seedUser(t.app, {}, options)
    const answer = await t.app.inject({ method: 'POST', url: `${V2}/login`, headers: { 'x-captcha-token': good() }, payload: { username: user.username, password: user.password } })
    const body = answer.json<{ access_token: string; refresh_token: string }>()
    return { user, accessToken: body.access_token, refreshToken: body.refresh_token, headers: { authorization: `Bearer ${body.access_token}` } }
  }
  beforeAll(async () => {
    t = await createTestApp(captchaEnv('always'))
    owner = await seedAndLoginPastTheDoor()
    org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: owner.headers, payload: { name: 'Door testers' } })).json()
  })
  afterAll(() => t.close())

  /** Each door, as a client calls it; `token` travels as the header. */
  const doors = (headers: Record<string, string>) => {
    const user = userFields()
    return {
      'v2 sign-up': () => t.app.inject({ method: 'POST', url: `${V2}/signup`, headers, payload: { ...user, accept_terms: true } }),
      'v1 sign-up': () => t.app.inject({ method: 'POST', url: `${V1}/users/`, headers, payload: userFields() }),
      'v2 login': () => t.app.inject({ method: 'POST', url: `${V2}/login`, headers, payload: { username: owner.user.username, password: owner.user.password } }),
      'v1 login': () => t.app.inject({ method: 'POST', url: `${V1}/login`, headers, payload: { username: owner.user.username, password: owner.user.password } }),
      'v1 login form': () =>
        t.app.inject({ method: 'POST', url: `${V1}/login`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ username: owner.user.username, password: owner.user.password }).toString() }),
      'email link or code': () => t.app.inject({ method: 'POST', url: `${V2}/login/email`, headers, payload: { email: owner.user.email } }),
      'v2 password reset': () => t.app.inject({ method: 'POST', url: `${V2}/password-reset`, headers, payload: { email: owner.user.email } }),
      'v1 password reset': () => t.app.inject({ method: 'POST', url: `${V1}/password-reset`, headers, payload: { email: owner.user.email } }),
      invitation: () => t.app.inject({ method: 'POST', url: `${V2}/orgs/${org.slug}/invitations`, headers: { ...headers, ...owner.headers }, payload: { email: `${user.username}@example.com`, role: 'member' } }),
    }
  }

  it.each(Object.keys(doors({})))('%s: asks without a token, takes a good one once, refuses a bad or used one', async (name) => {
    const call = (headers: Record<string, string>) => doors(headers)[name as keyof ReturnType<typeof doors>]()
    expectAsked(await call({}))
    const token = good()
    const passed = await call({ 'x-captcha-token': token })
    notAsked(passed)
    expect(passed.statusCode, passed.body).toBeLessThan(400)
    expectAsked(await call({ 'x-captcha-token': token }), 'captcha_failed')
    expectAsked(await call({ 'x-captcha-token': 'fail-1' }), 'captcha_failed')
  })

  it('asks nothing of a signed-in caller creating an account', async () => {
    const superuser = await seedAndLoginPastTheDoor({ superuser: true })
    const created = await t.app.inject({ method: 'POST', url: `${V2}/users`, headers: superuser.headers, payload: { ...userFields(), accept_terms: true } })
    expect(created.statusCode, created.body).toBe(201)
  })

  it('takes the token as captcha_token in a JSON or form body too, and never hands it to the body schema', async () => {
    const json = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: owner.user.username, password: owner.user.password, captcha_token: good() } })
    expect(json.statusCode, json.body).toBe(200)
    const form = await t.app.inject({
      method: 'POST',
      url: `${V1}/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ username: owner.user.username, password: owner.user.password, captcha_token: good() }).toString(),
    })
    expect(form.statusCode, form.body).toBe(200)
    expect(verifier.received.at(-1)).toMatchObject({ secret: TEST_SECRET, remoteip: '127.0.0.1' })
  })

  it('surfaces captcha_required with the site key in the typed client, which then sends the token', async () => {
    const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { auth } = createClient({ baseUrl })
    const refused = await auth.login(owner.user.username, owner.user.password).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 400, code: 'captcha_required', captcha: { provider: 'turnstile', siteKey: 'site-key-for-tests' } })
    const session = await auth.login(owner.user.username, owner.user.password, { captchaToken: good() })
    expect(session.accessToken).toBeTruthy()
  })

  it('never asks on refresh, token exchange, confirmations or second steps', async () => {
    const exempt = [
      t.app.inject({ method: 'POST', url: `${V2}/refresh`, payload: { refresh_token: owner.refreshToken } }),
      t.app.inject({ method: 'POST', url: `${V1}/refresh`, payload: { refresh_token: 'x'.repeat(20) } }),
      t.app.inject({ method: 'POST', url: `${V2}/auth/token`, payload: { code: 'x'.repeat(20) } }),
      t.app.inject({ method: 'POST', url: `${V2}/email-verification/confirm`, payload: { token: 'x'.repeat(20) } }),
      t.app.inject({ method: 'POST', url: `${V2}/password-reset/confirm`, payload: { token: 'x'.repeat(20), new_password: 'a brand new password' } }),
      t.app.inject({ method: 'POST', url: `${V2}/login/email/confirm`, payload: { token: 'x'.repeat(20) } }),
      t.app.inject({ method: 'POST', url: `${V2}/login/mfa`, payload: { mfa_token: 'x'.repeat(20), code: '123456' } }),
    ]
    for (const response of await Promise.all(exempt)) notAsked(response)
  })

  it('answers 503 when the verifier does not answer in time, and asks nothing of it for a missing token', async () => {
    const before = verifier.received.length
    expectAsked(await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: owner.user.username, password: 'x' } }))
    expect(verifier.received.length).toBe(before)
    expectError(await t.app.inject({ method: 'POST', url: `${V2}/login`, headers: { 'x-captcha-token': 'slow-1' }, payload: { username: owner.user.username, password: owner.user.password } }), 503, undefined, 'service_unavailable')
  })

  it('records a refused token as a security event and in the overview', async () => {
    const superuser = await seedAndLoginPastTheDoor({ superuser: true })
    const before = (await t.app.inject({ url: `${V2}/admin/overview`, headers: superuser.headers })).json().days.at(-1).captcha_failures as number
    expectAsked(await t.app.inject({ method: 'POST', url: `${V2}/password-reset`, headers: { 'x-captcha-token': 'fail-2' }, payload: { email: 'anyone@example.com' } }), 'captcha_failed')
    const after = (await t.app.inject({ url: `${V2}/admin/overview`, headers: superuser.headers })).json().days.at(-1).captcha_failures as number
    expect(after).toBe(before + 1)
    const events = await t.db.selectFrom('security_events').select('type').where('type', '=', 'captcha_failed').execute()
    expect(events.length).toBeGreaterThanOrEqual(1)
  })
})

describe('adaptive: asks once risk is raised, and stops after the window', () => {
  let t: TestApp
  const WINDOW_SECONDS = 2
  beforeAll(async () => {
    t = await createTestApp(captchaEnv('adaptive', { CAPTCHA_RISK_WINDOW_SECONDS: String(WINDOW_SECONDS), CAPTCHA_FAILURE_THRESHOLD: '3', CAPTCHA_SIGNUP_THRESHOLD: '2' }))
  })
  afterAll(() => t.close())

  const login = (username: string, password: string, headers: Record<string, string> = {}, remoteAddress = '10.1.1.1') =>
    t.app.inject({ method: 'POST', url: `${V2}/login`, headers, remoteAddress, payload: { username, password } })

  it('lets a login through, asks after three failures from the address, and relaxes once the window has passed', async () => {
    const user = await seedUser(t.app)
    expect((await login(user.username, user.password)).statusCode).toBe(200)
    // Guesses at accounts that do not exist, from one address.
    for (let attempt = 0; attempt < 3; attempt++) expect((await login(`nobody-${attempt}`, 'wrong password', {}, '10.2.2.2')).statusCode).toBe(401)
    expectAsked(await login(user.username, user.password, {}, '10.2.2.2'))
    expect((await login(user.username, user.password, { 'x-captcha-token': good() }, '10.2.2.2')).statusCode).toBe(200)
    // Another address is not held to this one's failures.
    expect((await login(user.username, user.password, {}, '10.9.9.9')).statusCode).toBe(200)
    await waitFor(async () => (await login(user.username, user.password, {}, '10.2.2.2')).statusCode === 200)
  })

  it("asks a new device of an account with failures, and spares the owner's known browser", async () => {
    const user = await seedUser(t.app)
    const first = await login(user.username, user.password, {}, '10.3.3.3')
    const deviceCookie = first.cookies.find((cookie) => cookie.name === 'device')
    expect(deviceCookie).toBeDefined()
    expect((await login(user.username, 'wrong password', {}, '10.4.4.4')).statusCode).toBe(401)
    expectAsked(await login(user.username, user.password, {}, '10.5.5.5'))
    const known = await login(user.username, user.password, { cookie: `device=${deviceCookie!.value}` }, '10.5.5.5')
    expect(known.statusCode, known.body).toBe(200)
  })

  it('does not count a right password that needs its second factor as a failure', async () => {
    const user = await seedUser(t.app)
    const signedIn = await login(user.username, user.password, {}, '10.6.6.6')
    await enrolTotp(t.app, { authorization: `Bearer ${signedIn.json<{ access_token: string }>().access_token}` })
    for (let attempt = 0; attempt < 3; attempt++) expect((await login(user.username, user.password, {}, '10.7.7.7')).json()).toMatchObject({ code: 'mfa_required' })
    const other = await seedUser(t.app)
    expect((await login(other.username, other.password, {}, '10.7.7.7')).statusCode).toBe(200)
  })

  it('counts a wrong password at every door that checks one on the account its body names (from the route table)', async () => {
    const passwordDoors = t.app.routeTable.filter((entry) => entry.config.door !== undefined && entry.config.door !== 'exempt' && PASSWORD_DOORS.includes(entry.config.door))
    expect(passwordDoors.map((entry) => `${entry.method} ${entry.url} ${entry.config.accountField}`).sort()).toEqual(
      ['POST /api/v2/login username', 'POST /api/v2/users/me/deletion/cancel login', 'POST /services/v1/login username'].sort(),
    )
    for (const [index, door] of passwordDoors.entries()) {
      const user = await seedUser(t.app)
      const guessed = await t.app.inject({ method: 'POST', url: door.url, remoteAddress: `10.40.${index}.1`, payload: { [door.config.accountField!]: user.username, password: 'not the password' } })
      expectError(guessed, 401, 'Incorrect username or password', 'invalid_credentials')
      // The account's risk was raised: a new device signing in to it is asked.
      expectAsked(await login(user.username, user.password, {}, `10.41.${index}.1`))
    }
  })

  it('counts a right password that has nothing to cancel as a wrong one', async () => {
    const user = await seedUser(t.app)
    const cancel = await t.app.inject({ method: 'POST', url: `${V2}/users/me/deletion/cancel`, remoteAddress: '10.42.0.1', payload: { login: user.email, password: user.password } })
    expectError(cancel, 401, 'Incorrect username or password', 'invalid_credentials')
    expectAsked(await login(user.username, user.password, {}, '10.42.0.2'))
  })

  it('asks after a burst of sign-ups from one /24 network, not from another', async () => {
    const signUp = (remoteAddress: string) => t.app.inject({ method: 'POST', url: `${V2}/signup`, remoteAddress, payload: { ...userFields(), accept_terms: true } })
    expect((await signUp('192.0.2.10')).statusCode).toBe(201)
    expect((await signUp('192.0.2.11')).statusCode).toBe(201)
    expectAsked(await signUp('192.0.2.12'))
    expect((await signUp('198.51.100.7')).statusCode).toBe(201)
  })
})

describe('CAPTCHA_PROVIDER=development: tried with no outside service', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ CAPTCHA_PROVIDER: 'development', CAPTCHA_MODE: 'always' })
  })
  afterAll(() => t.close())

  it('asks, takes "pass" and refuses anything else, with no keys and no verifier to reach', async () => {
    const user = await seedUser(t.app)
    const login = (headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: `${V2}/login`, headers, payload: { username: user.username, password: user.password } })
    const asked = await login()
    expectError(asked, 400, 'Solve the CAPTCHA and send its token (CAPTCHA_MODE=always)', 'captcha_required')
    expect(asked.json()).toMatchObject({ provider: 'development', site_key: 'development' })
    expect((await login({ 'x-captcha-token': 'pass' })).statusCode).toBe(200)
    expectError(await login({ 'x-captcha-token': 'anything else' }), 400, undefined, 'captcha_failed')
  })

  it("shows a checkbox on the service's sign-up page that sends the token", async () => {
    const page = await t.app.inject({ url: '/account/signup' })
    expect(page.body).toContain('<input name="captcha_token" type="checkbox" value="pass" required>')
    expect(String(page.headers['content-security-policy'])).not.toContain('challenges.cloudflare.com')
    const { name, username, email, password } = userFields()
    const form = new URLSearchParams({ name, username, email, password, accept_terms: 'on', captcha_token: 'pass' }).toString()
    const signedUp = await t.app.inject({ method: 'POST', url: '/account/signup', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:8000' }, payload: form })
    expect(signedUp.statusCode, signedUp.body).toBe(200)
    expect(signedUp.body).toContain('Your account is created')
    expect(await t.db.selectFrom('users').select('id').where('username', '=', username).execute()).toHaveLength(1)
  })

  it('is refused in production', () => {
    expect(() => abuseSettings({ CAPTCHA_PROVIDER: 'development', NODE_ENV: 'production' })).toThrow(/CAPTCHA_PROVIDER=development lets the token "pass" through: it is refused in production/)
  })
})

describe('the network a sign-up comes from', () => {
  it('is the /24 of an IPv4 address, mapped into IPv6 or not, and the /64 of an IPv6 one', () => {
    expect(networkOf('192.0.2.77')).toBe('192.0.2.0/24')
    expect(networkOf('::ffff:192.0.2.77')).toBe('192.0.2.0/24')
    expect(networkOf('2001:db8:1:2:3:4:5:6')).toBe(networkOf('2001:db8:1:2::9'))
    expect(networkOf('2001:db8:1:2::9')).not.toBe(networkOf('2001:db8:1:3::9'))
  })
})

describe('the doors in the route table', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('has every route that takes changes without credentials name its door or say it is exempt, and the doors are the ones listed', () => {
    const anonymous = t.app.routeTable.filter((entry) => !entry.protectedRoute && !['GET', 'HEAD', 'OPTIONS'].includes(entry.method))
    expect(anonymous.filter((entry) => entry.config.door === undefined)).toEqual([])
    const doors = t.app.routeTable.filter((entry) => entry.config.door !== undefined && entry.config.door !== 'exempt').map((entry) => `${entry.method} ${entry.url} ${entry.config.door}`)
    expect(doors.sort()).toEqual(
      [
        'POST /account/signup signup',
        'POST /services/v1/users signup',
        'POST /services/v1/login login',
        'POST /services/v1/password-reset password-reset',
        'POST /api/v2/signup signup',
        'POST /api/v2/users signup',
        'POST /api/v2/login login',
        'POST /api/v2/users/me/deletion/cancel login',
        'POST /api/v2/login/email email-login',
        'POST /api/v2/password-reset password-reset',
        'POST /api/v2/orgs/:org/invitations invitation',
      ].sort(),
    )
    expect(new Set(doors.map((door) => door.split(' ')[2]))).toEqual(new Set(DOORS))
  })

  it('takes a captcha_token in the body without a provider set, and asks for nothing', async () => {
    const user = await seedUser(t.app)
    const login = await t.app.inject({ method: 'POST', url: `${V2}/login`, payload: { username: user.username, password: user.password, captcha_token: 'left over by a frontend' } })
    expect(login.statusCode, login.body).toBe(200)
  })

  it("offers the service's sign-up page only where anyone may sign up", async () => {
    expect((await t.app.inject({ url: '/account/signup' })).statusCode).toBe(200)
    const closed = await createTestApp({ USER_SIGNUP: 'authenticated' })
    try {
      expect((await closed.app.inject({ url: '/account/signup' })).statusCode).toBe(404)
      expect((await closed.app.inject({ method: 'POST', url: '/account/signup', payload: {} })).statusCode).toBe(404)
    } finally {
      await closed.close()
    }
  })

  it('refuses to start with a route anyone may send a password to that does not say it checks one, or names no account field', async () => {
    const schema = { body: { type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' } } } }
    await expect(createTestApp({}, (app) => app.post('/guess', { config: { door: 'exempt' }, schema }, async () => 'ok'))).rejects.toThrow(/POST \/guess takes a password from anyone/)
    await expect(createTestApp({}, (app) => app.post('/guess', { config: { door: 'login' }, schema }, async () => 'ok'))).rejects.toThrow(/POST \/guess checks a password \(door 'login'\) and must name the body field of its account/)
    await expect(createTestApp({}, (app) => app.post('/guess', { config: { door: 'login', accountField: 'login' }, schema }, async () => 'ok'))).rejects.toThrow(/names login as its account field, which its body does not have/)
  })

  it('refuses to start with a route anyone may post to that names no door', async () => {
    await expect(createTestApp({}, (app) => app.post('/unmarked', async () => 'ok'))).rejects.toThrow(/POST \/unmarked takes requests without credentials and must declare its door/)
  })
})
