import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import { seedAndLogin, seedUser,V1 } from '../../../test/helpers/users.js'

const USER_READ_KEYS = ['email', 'id', 'name', 'profile_image_url', 'tier_id', 'username']

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('GET /users/{user_id}', () => {
  it('returns exactly the UserRead fields', async () => {
    const user = await seedUser(t.app)
    const response = await t.app.inject({ url: `${V1}/users/${user.id}` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(USER_READ_KEYS)
    expect(body).toMatchObject({ id: user.id, name: user.name, username: user.username, email: user.email, tier_id: null })
    expect(response.body).not.toContain('password')
  })

  it('gives 404 "User not found" for an absent id', async () => {
    expectError(await t.app.inject({ url: `${V1}/users/999999` }), 404, 'User not found')
  })

  it('gives 404 for a soft-deleted user', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    expectError(await t.app.inject({ url: `${V1}/users/${user.id}` }), 404, 'User not found')
  })

  it.each(['abc', '0', '-1', '1.5', '2147483648', '99999999999999999999', '1e3', '0x10', '%207', '1%2C2'])('gives 422 for the id %s', async (id) => {
    expectValidationError(await t.app.inject({ url: `${V1}/users/${id}` }), ['path', 'user_id'])
  })
})

describe('GET /users/me', () => {
  it('returns the caller and is not swallowed by /users/{user_id}', async () => {
    const { user, headers } = await seedAndLogin(t.app)
    const response = await t.app.inject({ url: `${V1}/users/me`, headers })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ id: user.id, username: user.username })
    expect(Object.keys(response.json()).sort()).toEqual(USER_READ_KEYS)
  })

  it('refuses a caller without a token with 401 and WWW-Authenticate', async () => {
    const response = await t.app.inject({ url: `${V1}/users/me` })
    expectError(response, 401, 'Not authenticated')
    expect(response.headers['www-authenticate']).toBe('Bearer')
  })
})

describe('GET /users/ (list)', () => {
  let local: TestApp
  beforeAll(async () => {
    local = await createTestApp()
    for (let i = 0; i < 12; i++) await seedUser(local.app)
  })
  afterAll(() => local.close())

  it('returns the envelope with defaults page=1, items_per_page=10, ordered by id', async () => {
    const response = await local.app.inject({ url: `${V1}/users/` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'items_per_page', 'page', 'total_count'])
    expect(body).toMatchObject({ total_count: 12, page: 1, items_per_page: 10, has_more: true })
    expect(body.data).toHaveLength(10)
    const ids = body.data.map((user: { id: number }) => user.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
  })

  it('starts at offset (page - 1) * items_per_page', async () => {
    const all = (await local.app.inject({ url: `${V1}/users?items_per_page=100` })).json().data
    const response = await local.app.inject({ url: `${V1}/users/?page=3&items_per_page=5` })
    const body = response.json()
    expect(body).toMatchObject({ page: 3, items_per_page: 5, total_count: 12, has_more: false })
    expect(body.data.map((u: { id: number }) => u.id)).toEqual(all.slice(10, 15).map((u: { id: number }) => u.id))
  })

  it('returns an empty page past the end', async () => {
    const body = (await local.app.inject({ url: `${V1}/users/?page=50` })).json()
    expect(body).toMatchObject({ data: [], total_count: 12, has_more: false, page: 50 })
  })

  it('hides soft-deleted users from the list and the count', async () => {
    const { user, headers } = await seedAndLogin(local.app)
    const before = (await local.app.inject({ url: `${V1}/users/` })).json().total_count
    await local.app.inject({ method: 'DELETE', url: `${V1}/users/${user.id}`, headers })
    const after = (await local.app.inject({ url: `${V1}/users/?items_per_page=100` })).json()
    expect(after.total_count).toBe(before - 1)
    expect(after.data.map((u: { id: number }) => u.id)).not.toContain(user.id)
  })

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['items_per_page=0', 'items_per_page'],
    ['items_per_page=101', 'items_per_page'],
    ['items_per_page=ten', 'items_per_page'],
  ])('gives 422 for %s', async (query, field) => {
    expectValidationError(await local.app.inject({ url: `${V1}/users/?${query}` }), ['query', field])
  })
})

describe('GET /users/search', () => {
  let local: TestApp
  let ids: Record<string, number>
  beforeAll(async () => {
    local = await createTestApp()
    const alice = await seedUser(local.app, { name: 'Alice Smith', age: 30 })
    const bob = await seedUser(local.app, { name: 'Bob Smithers', age: 40 })
    const carol = await seedUser(local.app, { name: 'Carol 100%_off', age: 30 })
    const dave = await seedUser(local.app, { name: 'Dave Inactive', age: 30 })
    await local.db.updateTable('users').set({ is_active: 0 }).where('id', '=', dave.id).execute()
    ids = { alice: alice.id, bob: bob.id, carol: carol.id, dave: dave.id }
  })
  afterAll(() => local.close())

  const search = async (query: string) => {
    const response = await local.app.inject({ url: `${V1}/users/search?${query}` })
    expect(response.statusCode, response.body).toBe(200)
    return (response.json() as { id: number }[]).map((user) => user.id)
  }

  it('is not swallowed by /users/{user_id} and returns an array of active users by default', async () => {
    expect(await search('')).toEqual([ids.alice, ids.bob, ids.carol])
  })

  it('matches name case-insensitively as a substring', async () => {
    expect(await search('name=SMITH')).toEqual([ids.alice, ids.bob])
  })

  it('treats LIKE wildcards in the name literally', async () => {
    expect(await search('name=%25_')).toEqual([ids.carol])
    expect(await search('name=_')).toEqual([ids.carol])
  })

  it('filters on age and combines filters', async () => {
    expect(await search('age=30')).toEqual([ids.alice, ids.carol])
    expect(await search('age=30&name=smith')).toEqual([ids.alice])
  })

  it('ignores empty name and age', async () => {
    expect(await search('name=&age=')).toEqual([ids.alice, ids.bob, ids.carol])
  })

  it('always filters on is_active', async () => {
    expect(await search('is_active=false')).toEqual([ids.dave])
    expect(await search('is_active=false&name=alice')).toEqual([])
  })

  it.each([
    ['age=abc', 'age'],
    ['age=151', 'age'],
    ['age=-1', 'age'],
    ['is_active=maybe', 'is_active'],
    [`name=${'x'.repeat(51)}`, 'name'],
  ])('gives 422 for %s', async (query, field) => {
    expectValidationError(await local.app.inject({ url: `${V1}/users/search?${query}` }), ['query', field])
  })
})
