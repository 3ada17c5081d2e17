import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, seedUser,V1 } from '../../../test/helpers/users.js'

let t: TestApp
let admin: LoggedIn
let member: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  admin = await seedAndLogin(t.app, {}, { superuser: true })
  member = await seedAndLogin(t.app)
})
afterAll(() => t.close())

const createTier = (name: unknown, headers: Record<string, string> = admin.headers) =>
  t.app.inject({ method: 'POST', url: `${V1}/tiers/`, payload: { name }, headers })

describe('tiers', () => {
  it('lets a superuser create tiers and anyone read them', async () => {
    const response = await createTier('basic')
    expect(response.statusCode, response.body).toBe(201)
    const tier = response.json()
    expect(tier).toMatchObject({ name: 'basic' })
    expect((await t.app.inject({ url: `${V1}/tiers/${tier.id}` })).json()).toEqual(tier)
    expect((await t.app.inject({ url: `${V1}/tiers/` })).json()).toContainEqual(tier)
  })

  it('refuses non-superusers (403), anonymous callers (401), duplicates (409) and bad names (422)', async () => {
    expectError(await createTier('premium', member.headers), 403, 'Not enough permissions')
    expectError(await createTier('premium', {}), 401, 'Not authenticated')
    expect((await createTier('premium')).statusCode).toBe(201)
    expectError(await createTier('premium'), 409, 'Tier already exists')
    expectValidationError(await createTier(''), ['body', 'name'])
    expectValidationError(await createTier('has space'), ['body', 'name'])
    expectError(await t.app.inject({ url: `${V1}/tiers/999999` }), 404, 'Tier not found')
  })

  it("sets a user's tier by id (superuser only) and deleting the tier clears it", async () => {
    const tier = (await createTier('gold')).json()
    const user = await seedUser(t.app)
    const setTier = (tierId: number | null, headers = admin.headers) =>
      t.app.inject({ method: 'PATCH', url: `${V1}/users/${user.id}/tier`, payload: { tier_id: tierId }, headers })
    expectError(await setTier(tier.id, member.headers), 403, 'Not enough permissions')
    const response = await setTier(tier.id)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().tier_id).toBe(tier.id)
    expectError(await setTier(999999), 404, 'Tier not found')

    const removed = await t.app.inject({ method: 'DELETE', url: `${V1}/tiers/${tier.id}`, headers: admin.headers })
    expect(removed.json()).toEqual({ message: 'Tier deleted' })
    expect((await t.app.inject({ url: `${V1}/users/${user.id}` })).json().tier_id).toBeNull()
    expect((await setTier(null)).json().tier_id).toBeNull()
  })

  it('gives 404 for the tier of an absent user', async () => {
    const response = await t.app.inject({ method: 'PATCH', url: `${V1}/users/999999/tier`, payload: { tier_id: null }, headers: admin.headers })
    expectError(response, 404, 'User not found')
  })
})
