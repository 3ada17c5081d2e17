import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { multipart,PNG_1X1 } from '../../../test/helpers/multipart.js'
import { sessionOf, signToken, unsignedToken } from '../../../test/helpers/tokens.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { login, seedAndLogin, seedUser, userFields,V1, V2 } from '../../../test/helpers/users.js'

const USER_READ_V2_KEYS = ['avatar_url', 'created_at', 'email', 'fields', 'id', 'is_verified', 'locale', 'name', 'subscription_tier', 'username']
/** What anyone else reads of a user by default (EMAIL_VISIBILITY unset: v2 shows an email, and the language, to its owner only). */
const PUBLIC_USER_READ_V2_KEYS = USER_READ_V2_KEYS.filter((key) => key !== 'email' && key !== 'locale')

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

describe('v2 user shape', () => {
  it('has avatar_url, subscription_tier, created_at and is_verified instead of v1 fields', async () => {
    const user = await seedUser(t.app)
    const response = await t.app.inject({ url: `${V2}/users/${user.id}` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(PUBLIC_USER_READ_V2_KEYS)
    const { accessToken } = await login(t.app, user.username, user.password, V2)
    const own = await t.app.inject({ url: `${V2}/users/${user.id}`, headers: { authorization: `Bearer ${accessToken}` } })
    expect(Object.keys(own.json()).sort()).toEqual(USER_READ_V2_KEYS)
    expect(own.json().email).toBe(user.email)
    // v1 keeps the specification's public shape unless EMAIL_VISIBILITY says otherwise.
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().email).toBe(user.email)
    expect(body).toMatchObject({
      id: user.id,
      username: user.username,
      avatar_url: user.profileImageUrl,
      subscription_tier: null,
      is_verified: false,
    })
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at)
  })

  it('names the tier in subscription_tier (v1 shows its id)', async () => {
    const tier = await t.app.inject({ method: 'POST', url: `${V2}/tiers/`, payload: { name: 'pro' }, headers: admin.headers })
    expect(tier.statusCode, tier.body).toBe(201)
    const user = await seedUser(t.app)
    const set = await t.app.inject({
      method: 'PATCH',
      url: `${V2}/users/${user.id}/tier`,
      payload: { subscription_tier: 'pro' },
      headers: admin.headers,
    })
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json().subscription_tier).toBe('pro')
    expect((await t.app.inject({ url: `${V2}/users/${user.id}` })).json().subscription_tier).toBe('pro')
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().tier_id).toBe(tier.json().id)

    expectError(
      await t.app.inject({ method: 'PATCH', url: `${V2}/users/${user.id}/tier`, payload: { subscription_tier: 'gold' }, headers: admin.headers }),
      404,
      'Tier not found',
    )
    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `${V2}/users/${user.id}/tier`,
      payload: { subscription_tier: null },
      headers: admin.headers,
    })
    expect(cleared.json().subscription_tier).toBeNull()
  })

  it('returns the v2 shape from /users/me', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const response = await t.app.inject({ url: `${V2}/users/me`, headers })
    expect(Object.keys(response.json()).sort()).toEqual(USER_READ_V2_KEYS)
    expect(response.json().id).toBe(user.id)
  })
})

describe('v2 POST /users/', () => {
  const create = (payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `${V2}/users/`, payload, headers })

  it('requires a logged-in caller, and tells an anonymous one where signing up is', async () => {
    expectError(await create({ ...userFields(), accept_terms: true }), 401, 'Not authenticated: POST /api/v2/users/ creates a user for a logged-in caller; to sign yourself up, POST /api/v2/signup', 'not_authenticated')
  })

  it('requires accept_terms to be true', async () => {
    const { headers } = await seedAndLogin(t.app)
    expectValidationError(await create(userFields(), headers), ['body', 'accept_terms'])
    expectValidationError(await create({ ...userFields(), accept_terms: false }, headers), ['body', 'accept_terms'])
    expectValidationError(await create({ ...userFields(), accept_terms: 'yes' }, headers), ['body', 'accept_terms'])
  })

  it('creates the user: 201 with the v2 shape, and the same rules as v1', async () => {
    const { headers } = await seedAndLogin(t.app)
    const fields = userFields()
    const response = await create({ ...fields, accept_terms: true }, headers)
    expect(response.statusCode, response.body).toBe(201)
    expect(Object.keys(response.json()).sort()).toEqual(USER_READ_V2_KEYS)
    expectError(await create({ ...userFields({ email: fields.email }), accept_terms: true }, headers), 409, 'Email is already registered')
    expectValidationError(await create({ ...userFields(), accept_terms: true, is_superuser: true }, headers), ['body', 'is_superuser'])
    // The new user can log in, through either version.
    await expect(login(t.app, fields.username, fields.password, V2)).resolves.toBeDefined()
  })
})

describe('v2 lists return the envelope with page, limit and search', () => {
  let local: TestApp
  beforeAll(async () => {
    local = await createTestApp()
    await seedUser(local.app, { name: 'Grace Hopper', username: 'grace', age: 85 })
    await seedUser(local.app, { name: 'Alan Turing', username: 'alan', age: 41 })
    await seedUser(local.app, { name: 'Ada Byron', username: 'countess', age: 36 })
  })
  afterAll(() => local.close())

  const get = async (url: string) => {
    const response = await local.app.inject({ url })
    expect(response.statusCode, response.body).toBe(200)
    return response.json()
  }

  it('lists users', async () => {
    const body = await get(`${V2}/users/?limit=2`)
    expect(body).toMatchObject({ total_count: 3, has_more: true, page: 1, items_per_page: 2 })
    expect(Object.keys(body.data[0]).sort()).toEqual(PUBLIC_USER_READ_V2_KEYS)
    expect((await get(`${V2}/users/?limit=2&page=2`)).data).toHaveLength(1)
  })

  it('searches users by name or username', async () => {
    const byName = await get(`${V2}/users/?search=TURING`)
    expect(byName.data.map((u: { username: string }) => u.username)).toEqual(['alan'])
    expect(byName.total_count).toBe(1)
    const byUsername = await get(`${V2}/users/?search=countess`)
    expect(byUsername.data.map((u: { name: string }) => u.name)).toEqual(['Ada Byron'])
  })

  it('pages the search endpoint', async () => {
    const body = await get(`${V2}/users/search?limit=1&page=2`)
    expect(body).toMatchObject({ total_count: 3, page: 2, items_per_page: 1, has_more: true })
    const filtered = await get(`${V2}/users/search?age=41&name=`)
    expect(filtered.data.map((u: { username: string }) => u.username)).toEqual(['alan'])
    expect((await get(`${V2}/users/search?search=gra`)).total_count).toBe(1)
  })

  it.each([
    ['users/?limit=0', 'limit'],
    ['users/?limit=101', 'limit'],
    ['users/?page=0', 'page'],
    [`users/?search=${'x'.repeat(51)}`, 'search'],
    ['users/search?limit=101', 'limit'],
    ['posts/?limit=101', 'limit'],
  ])('gives 422 for %s', async (path, field) => {
    expectValidationError(await local.app.inject({ url: `${V2}/${path}` }), ['query', field])
  })
})

describe('v2 user writes', () => {
  it('updates with avatar_url (profile_image_url is a v1 field)', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${V2}/users/${user.id}`,
      payload: { avatar_url: 'https://cdn.example.com/me.png', name: 'Renamed' },
      headers,
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ avatar_url: 'https://cdn.example.com/me.png', name: 'Renamed' })
    expectValidationError(
      await t.app.inject({ method: 'PATCH', url: `${V2}/users/${user.id}`, payload: { profile_image_url: '/x' }, headers }),
      ['body', 'profile_image_url'],
    )
  })

  it('keeps the v1 rules: 401, 403, 404 and the same texts', async () => {
    const target = await seedUser(t.app)
    const other = await seedAndLogin(t.app)
    const patch = (headers: Record<string, string>, id = target.id) =>
      t.app.inject({ method: 'PATCH', url: `${V2}/users/${id}`, payload: { name: 'Nope Nope' }, headers })
    expectError(await patch({}), 401, 'Not authenticated')
    expectError(await patch(other.headers), 403, 'Not enough permissions')
    expectError(await patch(admin.headers, 999999), 404, 'User not found')
    expectError(await t.app.inject({ url: `${V2}/users/999999` }), 404, 'User not found')
    expectError(await t.app.inject({ url: `${V2}/nothing-here` }), 404, 'Not Found')
  })

  it('soft-deletes and removes permanently with the same messages', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const soft = await t.app.inject({ method: 'DELETE', url: `${V2}/users/${user.id}`, headers })
    expect(soft.json()).toEqual({ message: 'User deleted' })
    const hard = await t.app.inject({ method: 'DELETE', url: `${V2}/users/${user.id}/permanent`, headers: admin.headers })
    expect(hard.json()).toEqual({ message: 'User deleted from the database' })
  })

  it('uploads an avatar and answers with avatar_url', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const body = multipart([{ field: 'file', filename: 'a.png', contentType: 'image/png', data: PNG_1X1 }])
    const response = await t.app.inject({
      method: 'POST',
      url: `${V2}/users/${user.id}/avatar`,
      payload: body.payload,
      headers: { ...body.headers, ...headers },
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(Object.keys(response.json()).sort()).toEqual(['avatar_url', 'message'])
    expect((await t.app.inject({ url: response.json().avatar_url })).statusCode).toBe(200)
  })
})

describe('v2 login, refresh and logout', () => {
  it('work under /api/v2, and the tokens serve both versions', async () => {
    const user = await seedUser(t.app)
    const { accessToken, refreshToken } = await login(t.app, user.email, user.password, V2)
    const headers = { authorization: `Bearer ${accessToken}` }
    expect((await t.app.inject({ url: `${V1}/users/me`, headers })).statusCode).toBe(200)
    const refreshed = await t.app.inject({ method: 'POST', url: `${V2}/refresh`, payload: { refresh_token: refreshToken } })
    expect(refreshed.statusCode).toBe(200)
    const logout = await t.app.inject({ method: 'POST', url: `${V2}/logout`, headers })
    expect(logout.json()).toEqual({ message: 'Logged out successfully' })
    expectError(await t.app.inject({ url: `${V2}/users/me`, headers }), 401, 'Not authenticated')
  })
})

describe('v2 bearer tokens', () => {
  it('refuses forged, expired, wrong-audience and alg "none" tokens on every protected v2 route', async () => {
    const { user, accessToken } = await seedAndLogin(t.app)
    const control = await signToken({ sub: user.id, sid: sessionOf(accessToken) })
    expect((await t.app.inject({ url: `${V2}/users/me`, headers: { authorization: `Bearer ${control}` } })).statusCode).toBe(200)
    const tokens = [
      await signToken({ sub: user.id }, { secret: 'another-secret-key-that-is-long-enough-xyz' }),
      await signToken({ sub: user.id }, { expiresAt: Math.floor(Date.now() / 1000) - 10 }),
      await signToken({ sub: user.id }, { audience: 'someone-else' }),
      unsignedToken(user.id),
    ]
    const requests = [
      { method: 'GET', url: `${V2}/users/me` },
      { method: 'PATCH', url: `${V2}/users/${user.id}`, payload: { name: 'Forged Name' } },
      { method: 'DELETE', url: `${V2}/users/${user.id}` },
      { method: 'POST', url: `${V2}/posts/`, payload: { title: 'forged', text: 'forged' } },
      { method: 'POST', url: `${V2}/logout` },
    ] as const
    for (const token of tokens) {
      for (const request of requests) {
        const response = await t.app.inject({ ...request, headers: { authorization: `Bearer ${token}` } })
        expectError(response, 401, 'Not authenticated')
      }
    }
    expect((await t.app.inject({ url: `${V2}/users/${user.id}` })).json()).toMatchObject({ name: user.name })
  })
})
