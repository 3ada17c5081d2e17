import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { sessionOf, signToken, unsignedToken } from '../../../test/helpers/tokens.js'
import { DEFAULT_PASSWORD, login, seedAndLogin, seedUser,V1 } from '../../../test/helpers/users.js'
import { PasswordHasher } from '../users/index.js'
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from './tokens.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())
afterEach(() => {
  vi.restoreAllMocks()
})

const me = (authorization?: string) =>
  t.app.inject({ url: `${V1}/users/me`, headers: authorization === undefined ? {} : { authorization } })

describe('POST /login', () => {
  it('accepts the OAuth2 password form with a username', async () => {
    const user = await seedUser(t.app)
    const response = await t.app.inject({
      method: 'POST',
      url: `${V1}/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'password', username: user.username, password: user.password, scope: '' }).toString(),
    })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type'])
    expect(body.token_type).toBe('bearer')
    expect(body.expires_in).toBe(15 * 60)
    expect(response.headers['cache-control']).toBe('no-store')
    expect((await me(`Bearer ${body.access_token}`)).json().id).toBe(user.id)
  })

  it('accepts JSON with an email in any case', async () => {
    const user = await seedUser(t.app)
    const { accessToken } = await login(t.app, user.email.toUpperCase(), user.password)
    expect((await me(`Bearer ${accessToken}`)).json().id).toBe(user.id)
  })

  it('sets the refresh token as an HttpOnly, SameSite=Lax cookie', async () => {
    const user = await seedUser(t.app)
    const response = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: user.password } })
    const cookie = response.cookies.find((c) => c.name === 'refresh_token')
    expect(cookie?.value).toBe(response.json().refresh_token)
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
    expect(cookie?.secure).toBeFalsy()
  })

  it('issues JWTs with sub, jti, iat, exp, typ, iss and aud: access tokens under the signing key (EdDSA), refresh tokens HS256', async () => {
    const user = await seedUser(t.app)
    const { accessToken, refreshToken } = await login(t.app, user.username, user.password)
    const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString())
    const header = JSON.parse(Buffer.from(accessToken.split('.')[0] ?? '', 'base64url').toString())
    expect(header.alg).toBe('EdDSA')
    expect(JSON.parse(Buffer.from(refreshToken.split('.')[0] ?? '', 'base64url').toString()).alg).toBe('HS256')
    const access = decode(accessToken)
    expect(access).toMatchObject({ sub: String(user.id), typ: 'access', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE })
    expect(access.exp - access.iat).toBe(15 * 60)
    expect(typeof access.jti).toBe('string')
    const refresh = decode(refreshToken)
    expect(refresh).toMatchObject({ sub: String(user.id), typ: 'refresh' })
    expect(refresh.exp - refresh.iat).toBe(7 * 24 * 60 * 60)
  })

  it('gives the same 401 for a wrong password and an unknown user, hashing in both cases', async () => {
    const user = await seedUser(t.app)
    const verify = vi.spyOn(PasswordHasher.prototype, 'verify')
    const wrong = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: 'wrong password' } })
    const unknown = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: 'nobody_here', password: 'wrong password' } })
    expectError(wrong, 401, 'Incorrect username or password')
    expectError(unknown, 401, 'Incorrect username or password')
    expect(wrong.headers['www-authenticate']).toBe('Bearer')
    expect(unknown.body).toBe(wrong.body)
    // Both paths ran one real argon2 verification (the unknown user against a dummy hash).
    expect(verify).toHaveBeenCalledTimes(2)
  })

  it('refuses a deactivated user and ends their live tokens', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    await t.db.updateTable('users').set({ is_active: 0 }).where('id', '=', user.id).execute()
    expectError(await me(headers.authorization), 401, 'Not authenticated')
    const response = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: user.password } })
    expectError(response, 401, 'Incorrect username or password')
  })

  it('validates the body', async () => {
    expectValidationError(await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: 'x' } }), ['body', 'password'])
    expectValidationError(
      await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: 'x', password: 'y', grant_type: 'client_credentials' } }),
      ['body', 'grant_type'],
    )
    expectValidationError(
      await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: 'x', password: 'y', admin: true } }),
      ['body', 'admin'],
    )
  })
})

describe('bearer tokens', () => {
  it('accepts a well-formed token signed with our key, in a live session (control)', async () => {
    const { user, accessToken } = await seedAndLogin(t.app)
    expect((await me(`Bearer ${await signToken({ sub: user.id, sid: sessionOf(accessToken) })}`)).statusCode).toBe(200)
  })

  it.each([
    ['a lower-case scheme', (token: string) => `bearer ${token}`],
    ['an upper-case scheme', (token: string) => `BEARER ${token}`],
    ['whitespace around and between', (token: string) => ` Bearer \t ${token}  `],
  ])('accepts %s', async (_label, header) => {
    const { accessToken } = await seedAndLogin(t.app)
    expect((await me(header(accessToken))).statusCode).toBe(200)
  })

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a scheme only', 'Bearer'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['garbage', 'Bearer not.a.jwt'],
    ['extra parts', 'Bearer a b'],
    ['a huge token', `Bearer ${'a'.repeat(10_000)}`],
  ])('refuses %s with 401', async (_label, header) => {
    const response = await me(header)
    expectError(response, 401, 'Not authenticated')
    expect(response.headers['www-authenticate']).toBe('Bearer')
  })

  it('refuses forged, expired, wrong-audience, wrong-issuer, other-algorithm, unknown-key and unsigned tokens', async () => {
    const user = await seedUser(t.app)
    const tokens = [
      await signToken({ sub: user.id }, { secret: 'another-secret-key-that-is-long-enough-xyz' }),
      await signToken({ sub: user.id }, { expiresAt: Math.floor(Date.now() / 1000) - 10 }),
      await signToken({ sub: user.id }, { audience: 'someone-else' }),
      await signToken({ sub: user.id }, { issuer: 'someone-else' }),
      await signToken({ sub: user.id }, { algorithm: 'HS512' }),
      await signToken({ sub: user.id }, { kid: 'no-such-key' }),
      unsignedToken(user.id),
      await signToken({ sub: user.id, typ: 'refresh' }),
      await signToken({ sub: 'abc' }),
      await signToken({ sub: 999999 }),
    ]
    for (const token of tokens) expectError(await me(`Bearer ${token}`), 401, 'Not authenticated')
  })

  it('refuses a token whose payload was tampered with', async () => {
    const { user, accessToken } = await seedAndLogin(t.app)
    const [header, payload, signature] = accessToken.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const tampered = Buffer.from(JSON.stringify({ ...claims, sub: String(user.id + 1) })).toString('base64url')
    expectError(await me(`Bearer ${header}.${tampered}.${signature}`), 401, 'Not authenticated')
  })

  it('refuses a refresh token presented as an access token', async () => {
    const { refreshToken } = await seedAndLogin(t.app)
    expectError(await me(`Bearer ${refreshToken}`), 401, 'Not authenticated')
  })
})

describe('POST /refresh', () => {
  const refresh = (payload?: object, cookies?: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: `${V1}/refresh`, ...(payload ? { payload } : {}), ...(cookies ? { cookies } : {}) })

  it('rotates: a new pair for the refresh token in the body, and the old one stops working', async () => {
    const { refreshToken } = await seedAndLogin(t.app)
    const first = await refresh({ refresh_token: refreshToken })
    expect(first.statusCode, first.body).toBe(200)
    const pair = first.json()
    expect(pair.refresh_token).not.toBe(refreshToken)
    expect((await me(`Bearer ${pair.access_token}`)).statusCode).toBe(200)
    expectError(await refresh({ refresh_token: refreshToken }), 401, 'Not authenticated')
  })

  it('reads the refresh token from the cookie when the body has none', async () => {
    const { refreshToken } = await seedAndLogin(t.app)
    const response = await refresh(undefined, { refresh_token: refreshToken })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.cookies.find((c) => c.name === 'refresh_token')?.value).toBe(response.json().refresh_token)
  })

  it('revokes the whole family when a used refresh token comes back', async () => {
    const { refreshToken } = await seedAndLogin(t.app)
    const rotated = (await refresh({ refresh_token: refreshToken })).json().refresh_token
    expectError(await refresh({ refresh_token: refreshToken }), 401, 'Not authenticated') // reuse
    expectError(await refresh({ refresh_token: rotated }), 401, 'Not authenticated') // family revoked
  })

  it('lets exactly one of two concurrent refreshes with one token win', async () => {
    const { refreshToken } = await seedAndLogin(t.app)
    const responses = await Promise.all([refresh({ refresh_token: refreshToken }), refresh({ refresh_token: refreshToken })])
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 401])
  })

  it('refuses a missing, forged or access token with 401', async () => {
    const { accessToken } = await seedAndLogin(t.app)
    expectError(await refresh(), 401, 'Not authenticated')
    expectError(await refresh({}), 401, 'Not authenticated')
    expectError(await refresh({ refresh_token: 'x.y.z' }), 401, 'Not authenticated')
    expectError(await refresh({ refresh_token: accessToken }), 401, 'Not authenticated')
  })

  it('refuses the refresh token of a user deleted since', async () => {
    const { user, headers, refreshToken } = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    expectError(await refresh({ refresh_token: refreshToken }), 401, 'Not authenticated')
  })

  it('refuses unknown fields', async () => {
    expectValidationError(await refresh({ refresh_token: 'a', extra: 1 }), ['body', 'extra'])
  })
})

describe('POST /logout', () => {
  it('revokes the access token and the refresh family', async () => {
    const { headers, refreshToken } = await seedAndLogin(t.app)
    const response = await t.app.inject({ method: 'POST', url: `${V1}/logout`, headers })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ message: 'Logged out successfully' })
    expect(response.cookies.find((c) => c.name === 'refresh_token')?.value).toBe('')
    expectError(await me(headers.authorization), 401, 'Not authenticated')
    expectError(
      await t.app.inject({ method: 'POST', url: `${V1}/refresh`, payload: { refresh_token: refreshToken } }),
      401,
      'Not authenticated',
    )
  })

  it('leaves the user\'s other sessions alone', async () => {
    const user = await seedUser(t.app)
    const phone = await login(t.app, user.username, DEFAULT_PASSWORD)
    const laptop = await login(t.app, user.username, DEFAULT_PASSWORD)
    await t.app.inject({ method: 'POST', url: `${V1}/logout`, headers: { authorization: `Bearer ${phone.accessToken}` } })
    expect((await me(`Bearer ${laptop.accessToken}`)).statusCode).toBe(200)
  })

  it('needs a valid access token', async () => {
    expectError(await t.app.inject({ method: 'POST', url: `${V1}/logout` }), 401, 'Not authenticated')
  })
})

describe('login rate limit', () => {
  let local: TestApp
  beforeAll(async () => {
    local = await createTestApp({ LOGIN_RATE_LIMIT: '3' })
  })
  afterAll(() => local.close())

  const attempt = (username: string, password: string, remoteAddress: string) =>
    local.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username, password }, remoteAddress })

  it('limits attempts per client address, with Retry-After', async () => {
    const user = await seedUser(local.app)
    for (let i = 0; i < 3; i++) expect((await attempt(`nobody_${i}`, 'wrong password', '10.0.0.1')).statusCode).toBe(401)
    const limited = await attempt(user.username, user.password, '10.0.0.1')
    expectError(limited, 429, 'Too many requests')
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // Another address is not affected.
    expect((await attempt(user.username, user.password, '10.0.0.2')).statusCode).toBe(200)
  })

  it('limits attempts per account across addresses', async () => {
    const user = await seedUser(local.app)
    for (let i = 0; i < 3; i++) expect((await attempt(user.username, 'wrong password', `10.1.0.${i}`)).statusCode).toBe(401)
    expectError(await attempt(user.username.toUpperCase(), user.password, '10.1.0.99'), 429, 'Too many requests')
    // Another account from a fresh address still works.
    const other = await seedUser(local.app)
    expect((await attempt(other.username, other.password, '10.1.1.1')).statusCode).toBe(200)
  })

  it('keeps the counters in the database so every process shares them', async () => {
    const rows = await local.db.selectFrom('rate_limits').select(['key', 'count']).execute()
    expect(rows.some((row) => row.key.startsWith('login-address:') && row.count >= 3)).toBe(true)
    expect(rows.some((row) => row.key.startsWith('login-account:') && row.count >= 3)).toBe(true)
  })
})

describe('COOKIE_SECURE', () => {
  it('marks the refresh cookie Secure when configured', async () => {
    const local = await createTestApp({ COOKIE_SECURE: 'true' })
    try {
      const user = await seedUser(local.app)
      const response = await local.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: user.password } })
      expect(response.cookies.find((c) => c.name === 'refresh_token')?.secure).toBe(true)
    } finally {
      await local.close()
    }
  })
})
