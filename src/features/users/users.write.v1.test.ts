import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { DEFAULT_PASSWORD, seedAndLogin, seedUser, userFields,V1 } from '../../../test/helpers/users.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const create = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${V1}/users/`, payload: payload as object, headers })

describe('POST /users/', () => {
  it('creates a user: 201 with UserRead, never the password', async () => {
    const fields = userFields({ age: 33 })
    const response = await create(fields)
    expect(response.statusCode, response.body).toBe(201)
    const body = response.json()
    expect(body).toMatchObject({ name: fields.name, username: fields.username, email: fields.email, tier_id: null })
    expect(body.id).toBeGreaterThan(0)
    expect(typeof body.profile_image_url).toBe('string')
    expect(response.body).not.toContain(fields.password)
    expect(response.body).not.toContain('hashed_password')
  })

  it('stores an argon2id hash, not the password', async () => {
    const response = await create(userFields())
    const row = await t.db.selectFrom('users').select('hashed_password').where('id', '=', response.json().id).executeTakeFirstOrThrow()
    expect(row.hashed_password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
  })

  it('refuses an existing email with 409, case-insensitively', async () => {
    const existing = await seedUser(t.app)
    expectError(await create(userFields({ email: existing.email })), 409, 'Email is already registered')
    expectError(await create(userFields({ email: existing.email.toUpperCase() })), 409, 'Email is already registered')
  })

  it('refuses an existing username with 409', async () => {
    const existing = await seedUser(t.app)
    expectError(await create(userFields({ username: existing.username })), 409, 'Username not available')
  })

  it('keeps a soft-deleted user\'s email reserved', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    expectError(await create(userFields({ email: user.email })), 409, 'Email is already registered')
  })

  it('gives one 201 and one 409 when two requests race for one email', async () => {
    for (let round = 0; round < 3; round++) {
      const email = userFields().email
      const responses = await Promise.all([create(userFields({ email })), create(userFields({ email: email.toUpperCase() }))])
      expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409])
      const conflict = responses.find((response) => response.statusCode === 409)
      expect(conflict?.json()).toEqual({ detail: 'Email is already registered', code: 'email_taken' })
    }
  })

  it('gives one 201 and the rest 409 when many requests race for one username', async () => {
    const username = userFields().username
    const responses = await Promise.all(Array.from({ length: 5 }, () => create(userFields({ username }))))
    const statuses = responses.map((response) => response.statusCode).sort()
    expect(statuses).toEqual([201, 409, 409, 409, 409])
  })

  it.each([
    ['name', 'A'],
    ['name', 'x'.repeat(31)],
    ['username', 'a'],
    ['username', 'x'.repeat(21)],
    ['username', 'Upper'],
    ['username', 'with space'],
    ['email', 'not-an-email'],
    ['email', `${'a'.repeat(250)}@example.com`],
    ['password', 'short'],
    ['password', 'x'.repeat(129)],
    ['age', -1],
    ['age', 151],
    ['age', 3.5],
  ])('gives 422 when %s is %j', async (field, value) => {
    expectValidationError(await create({ ...userFields(), [field]: value }), ['body', field])
  })

  it.each(['name', 'username', 'email', 'password'])('gives 422 when %s is missing', async (field) => {
    const fields: Record<string, unknown> = { ...userFields() }
    delete fields[field]
    expectValidationError(await create(fields), ['body', field])
  })

  it.each([
    ['name', 123],
    ['email', ['a@b.co']],
    ['password', { value: 'x' }],
    ['age', '33'],
    ['username', null],
  ])('gives 422 (no coercion) when %s has the wrong type %j', async (field, value) => {
    expectValidationError(await create({ ...userFields(), [field]: value }), ['body', field])
  })

  it.each([['is_superuser', true], ['tier_id', 1], ['id', 5], ['is_verified', true], ['hashed_password', 'x']])(
    'refuses the unknown field %s (no mass assignment)',
    async (field, value) => {
      expectValidationError(await create({ ...userFields(), [field]: value }), ['body', field])
    },
  )

  it('refuses a body that is not an object', async () => {
    expectError(await create([userFields()]), 422)
    expectError(await t.app.inject({ method: 'POST', url: `${V1}/users/`, headers: { 'content-type': 'application/json' }, payload: '"x"' }), 422)
  })

  it('refuses malformed JSON with 400 and an unsupported content type with 415', async () => {
    expectError(
      await t.app.inject({ method: 'POST', url: `${V1}/users/`, headers: { 'content-type': 'application/json' }, payload: '{"name":' }),
      400,
      'Request body is not valid JSON',
    )
    expectError(
      await t.app.inject({ method: 'POST', url: `${V1}/users/`, headers: { 'content-type': 'text/plain' }, payload: 'hello' }),
      415,
    )
  })

  it('needs no login by default (USER_SIGNUP=open)', async () => {
    expect((await create(userFields())).statusCode).toBe(201)
  })
})

describe('POST /users/ with USER_SIGNUP=authenticated', () => {
  let local: TestApp
  beforeAll(async () => {
    local = await createTestApp({ USER_SIGNUP: 'authenticated' })
  })
  afterAll(() => local.close())

  it('refuses an anonymous caller with 401 and accepts a logged-in one', async () => {
    const payload = userFields()
    expectError(await local.app.inject({ method: 'POST', url: `${V1}/users/`, payload }), 401, 'Not authenticated')
    const { headers } = await seedAndLogin(local.app)
    const response = await local.app.inject({ method: 'POST', url: `${V1}/users/`, payload, headers })
    expect(response.statusCode).toBe(201)
  })
})

describe('PATCH /users/{user_id}', () => {
  const patch = (id: number | string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'PATCH', url: `${V1}/users/${id}`, payload: payload as object, headers })

  it('lets a user update themselves and returns the updated UserRead', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const response = await patch(user.id, { name: 'New Name', age: 44, profile_image_url: 'https://cdn.example.com/a.png' }, headers)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ id: user.id, name: 'New Name', profile_image_url: 'https://cdn.example.com/a.png' })
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().name).toBe('New Name')
  })

  it('needs a login (401)', async () => {
    const user = await seedUser(t.app)
    expectError(await patch(user.id, { name: 'Nobody' }), 401, 'Not authenticated')
  })

  it('refuses another user with 403 and lets a superuser through', async () => {
    const target = await seedUser(t.app)
    const { headers } = await seedAndLogin(t.app)
    expectError(await patch(target.id, { name: 'Hijacked' }, headers), 403, 'Not enough permissions')
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    expect((await patch(target.id, { name: 'By Admin' }, admin.headers)).statusCode).toBe(200)
  })

  it('gives 404 for an absent or soft-deleted user (superuser)', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    expectError(await patch(999999, { name: 'Ghost' }, admin.headers), 404, 'User not found')
    const victim = await seedUser(t.app)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${victim.id}`, headers: admin.headers })
    expectError(await patch(victim.id, { name: 'Ghost' }, admin.headers), 404, 'User not found')
  })

  it('refuses an email or username taken by another user with 409', async () => {
    const other = await seedUser(t.app)
    const { user, headers } = await seedAndLogin(t.app)
    expectError(await patch(user.id, { email: other.email.toUpperCase(), current_password: user.password }, headers), 409, 'Email is already registered')
    expectError(await patch(user.id, { username: other.username }, headers), 409, 'Username not available')
    // Keeping one's own values is not a conflict.
    expect((await patch(user.id, { email: user.email, username: user.username }, headers)).statusCode).toBe(200)
  })

  it('refuses an empty body, unknown fields and invalid values with 422', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    expectError(await patch(user.id, {}, headers), 422)
    expectValidationError(await patch(user.id, { is_superuser: true }, headers), ['body', 'is_superuser'])
    expectValidationError(await patch(user.id, { password: 'new password' }, headers), ['body', 'password'])
    expectValidationError(await patch(user.id, { email: 'nope' }, headers), ['body', 'email'])
    expectValidationError(await patch(user.id, { profile_image_url: 'javascript:alert(1)' }, headers), ['body', 'profile_image_url'])
    expectValidationError(await patch('abc', { name: 'Valid Name' }, headers), ['path', 'user_id'])
  })
})

describe('DELETE /users/{user_id}', () => {
  const remove = (id: number, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'DELETE', url: `${V1}/users/${id}`, headers })

  it('soft-deletes: message object, then the user is invisible and cannot log in', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const response = await remove(user.id, headers)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ message: 'User deleted' })
    expectError(await t.app.inject({ url: `${V1}/users/${user.id}` }), 404, 'User not found')
    // Their live token stops working, and they cannot log in again.
    expectError(await t.app.inject({ url: `${V1}/users/me`, headers }), 401, 'Not authenticated')
    const login = await t.app.inject({ method: 'POST', url: `${V1}/login`, payload: { username: user.username, password: DEFAULT_PASSWORD } })
    expectError(login, 401, 'Incorrect username or password')
    // The row is still there, marked deleted.
    const row = await t.db.selectFrom('users').select(['is_deleted', 'deleted_at']).where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(Boolean(row.is_deleted)).toBe(true)
    expect(row.deleted_at).not.toBeNull()
  })

  it('needs a login, refuses other users, allows superusers', async () => {
    const target = await seedUser(t.app)
    expectError(await remove(target.id), 401, 'Not authenticated')
    const other = await seedAndLogin(t.app)
    expectError(await remove(target.id, other.headers), 403, 'Not enough permissions')
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    expect((await remove(target.id, admin.headers)).statusCode).toBe(200)
    expectError(await remove(target.id, admin.headers), 404, 'User not found')
  })

  it('gives 404 for an absent user', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    expectError(await remove(999999, admin.headers), 404, 'User not found')
  })
})

describe('DELETE /users/{user_id}/permanent', () => {
  const purge = (id: number, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'DELETE', url: `${V1}/users/${id}/permanent`, headers })

  it('is for superusers only: 401 anonymous, 403 for anyone else (even for themselves)', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    expectError(await purge(user.id), 401, 'Not authenticated')
    expectError(await purge(user.id, headers), 403, 'Not enough permissions')
  })

  it('removes a live user and their refresh tokens from the database', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const { user } = await seedAndLogin(t.app)
    const response = await purge(user.id, admin.headers)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ message: 'User deleted from the database' })
    expect(await t.db.selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst()).toBeUndefined()
    expect(await t.db.selectFrom('refresh_tokens').select('jti').where('user_id', '=', user.id).execute()).toEqual([])
  })

  it('removes a soft-deleted user and frees their email', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const { user, headers } = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    expect((await purge(user.id, admin.headers)).statusCode).toBe(200)
    expect((await create(userFields({ email: user.email }))).statusCode).toBe(201)
  })

  it('gives 404 for an absent user', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    expectError(await purge(999999, admin.headers), 404, 'User not found')
  })

  it('never reuses a removed id, so an old token cannot become someone else', async () => {
    const admin = await seedAndLogin(t.app, {}, { superuser: true })
    const victim = await seedAndLogin(t.app)
    await purge(victim.user.id, admin.headers)
    const next = await seedUser(t.app)
    expect(next.id).toBeGreaterThan(victim.user.id)
    expectError(await t.app.inject({ url: `${V1}/users/me`, headers: victim.headers }), 401, 'Not authenticated')
  })
})
