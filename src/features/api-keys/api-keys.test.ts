// API keys for server-to-server callers: shown once, stored hashed, acting as their owner within
// their scopes, never managing keys, sessions, passwords or email, dead with their owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin,V1, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let admin: LoggedIn
beforeAll(async () => {
  t = await createTestApp()
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

async function createKey(owner: LoggedIn, scopes: string[], prefix = V2) {
  const response = await t.app.inject({ method: 'POST', url: `${prefix}/api-keys/`, payload: { name: 'integration', scopes }, headers: owner.headers })
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as { id: number; key: string; prefix: string; scopes: string[] }
}

const withKey = (key: string) => ({ 'x-api-key': key })

describe.each([V1, V2])('API keys (%s)', (prefix) => {
  it('are shown once, listed without secrets, and stored hashed', async () => {
    const owner = await seedAndLogin(t.app)
    const created = await createKey(owner, ['read'], prefix)
    expect(created.key).toMatch(/^ups_[A-Za-z0-9]{8}_/)
    expect(created.key.startsWith(`ups_${created.prefix}_`)).toBe(true)
    expect(created.scopes).toEqual(['read'])
    const listed = await t.app.inject({ url: `${prefix}/api-keys/`, headers: owner.headers })
    expect(listed.json()).toHaveLength(1)
    expect(Object.keys(listed.json()[0]).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes'])
    expect(listed.body).not.toContain(created.key)
    const rows = await t.db.selectFrom('api_keys').select('key_hash').where('id', '=', created.id).execute()
    expect(rows[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]?.key_hash).not.toContain(created.key)
  })

  it('act as the owner within their scopes: read keys only GET', async () => {
    const owner = await seedAndLogin(t.app)
    const read = await createKey(owner, ['read'], prefix)
    const write = await createKey(owner, ['read', 'write'], prefix)
    const me = await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(read.key) })
    expect(me.statusCode).toBe(200)
    expect(me.json().username).toBe(owner.user.username)
    const post = (key: string) => t.app.inject({ method: 'POST', url: `${prefix}/posts/`, payload: { title: 'By key', text: 'yes' }, headers: withKey(key) })
    expectError(await post(read.key), 403, 'API key scope does not allow this')
    const written = await post(write.key)
    expect(written.statusCode).toBe(201)
    expect(written.json().author_id).toBe(owner.user.id)
    // Keys count against their owner's budget, with the owner's tier.
    expect(me.headers['ratelimit-limit']).toBeDefined()
  })

  it('never manage keys, sessions, passwords or email', async () => {
    const owner = await seedAndLogin(t.app)
    const { key } = await createKey(owner, ['read', 'write'], prefix)
    const refused = [
      await t.app.inject({ method: 'POST', url: `${prefix}/api-keys/`, payload: { name: 'x', scopes: ['read'] }, headers: withKey(key) }),
      await t.app.inject({ url: `${prefix}/api-keys/`, headers: withKey(key) }),
      await t.app.inject({ url: `${prefix}/sessions`, headers: withKey(key) }),
      await t.app.inject({ method: 'DELETE', url: `${prefix}/sessions`, headers: withKey(key) }),
      await t.app.inject({ method: 'POST', url: `${prefix}/users/me/password`, payload: { current_password: owner.user.password, new_password: 'a brand new pass 1' }, headers: withKey(key) }),
      await t.app.inject({ method: 'POST', url: `${prefix}/email-verification`, headers: withKey(key) }),
      await t.app.inject({ method: 'PATCH', url: `${prefix}/users/${owner.user.id}`, payload: { email: `key_${owner.user.id}@example.com` }, headers: withKey(key) }),
      await t.app.inject({ method: 'POST', url: `${prefix}/logout`, headers: withKey(key) }),
    ]
    for (const response of refused) expectError(response, 403, 'API keys cannot be used here')
    // Other changes to the owner are fine.
    expect((await t.app.inject({ method: 'PATCH', url: `${prefix}/users/${owner.user.id}`, payload: { name: 'Renamed By Key' }, headers: withKey(key) })).statusCode).toBe(200)
  })

  it('stop working when revoked, or when the owner is deleted or deactivated', async () => {
    const owner = await seedAndLogin(t.app)
    const revoked = await createKey(owner, ['read'], prefix)
    const kept = await createKey(owner, ['read'], prefix)
    expect((await t.app.inject({ method: 'DELETE', url: `${prefix}/api-keys/${revoked.id}`, headers: owner.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(revoked.key) }), 401, 'Not authenticated')
    expectError(await t.app.inject({ method: 'DELETE', url: `${prefix}/api-keys/${revoked.id}`, headers: owner.headers }), 404, 'API key not found')
    const stranger = await seedAndLogin(t.app)
    expectError(await t.app.inject({ method: 'DELETE', url: `${prefix}/api-keys/${kept.id}`, headers: stranger.headers }), 404, 'API key not found')

    await t.db.updateTable('users').set({ is_active: 0 }).where('id', '=', owner.user.id).execute()
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(kept.key) }), 401, 'Not authenticated')
    await t.db.updateTable('users').set({ is_active: 1 }).where('id', '=', owner.user.id).execute()
    expect((await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(kept.key) })).statusCode).toBe(200)
    await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${owner.user.id}`, headers: admin.headers })
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(kept.key) }), 401, 'Not authenticated')
  })

  it('stay dead when their deleted owner is restored', async () => {
    const owner = await seedAndLogin(t.app)
    const { key } = await createKey(owner, ['read'], prefix)
    expect((await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${owner.user.id}`, headers: owner.headers })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'POST', url: `${prefix}/users/${owner.user.id}/restore`, headers: admin.headers })).statusCode).toBe(200)
    expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(key) }), 401, 'Not authenticated')
  })

  it('a read key creates nothing, public routes included: no sign-up, no login, no reset', async () => {
    const owner = await seedAndLogin(t.app)
    const { key } = await createKey(owner, ['read'], prefix)
    const fields = { name: 'Made By Key', username: `bykey${owner.user.id}${prefix.length}`, email: `bykey_${owner.user.id}_${prefix.length}@example.com`, password: 'made by a key 123', accept_terms: true }
    const refused = [
      await t.app.inject({ method: 'POST', url: `${prefix}/users/`, payload: prefix === V1 ? { ...fields, accept_terms: undefined } : fields, headers: withKey(key) }),
      await t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: { username: owner.user.username, password: owner.user.password }, headers: withKey(key) }),
      await t.app.inject({ method: 'POST', url: `${prefix}/password-reset`, payload: { email: owner.user.email }, headers: withKey(key) }),
    ]
    for (const response of refused) expectError(response, 403, 'API key scope does not allow this', 'api_key_scope_insufficient')
    expect(await t.db.selectFrom('users').select('id').where('username', '=', fields.username).executeTakeFirst()).toBeUndefined()
  })

  it("a superuser's key cannot restore, remove or manage: superuser routes take a login token only", async () => {
    const { key } = await createKey(admin, ['read', 'write'], prefix)
    const victim = await seedAndLogin(t.app)
    await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${victim.user.id}`, headers: victim.headers })
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/users/${victim.user.id}/restore`, headers: withKey(key) }), 403, 'API keys cannot be used here')
    expectError(await t.app.inject({ method: 'DELETE', url: `${prefix}/users/${victim.user.id}/permanent`, headers: withKey(key) }), 403, 'API keys cannot be used here')
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/tiers/`, payload: { name: `bykey${prefix.length}` }, headers: withKey(key) }), 403, 'API keys cannot be used here')
  })

  it('refuse forged and malformed keys with 401 on protected routes, and ignore them on public ones', async () => {
    for (const key of ['nonsense', `ups_AAAAAAAA_${'a'.repeat(43)}`, 'x'.repeat(5000)]) {
      expectError(await t.app.inject({ url: `${prefix}/users/me`, headers: withKey(key) }), 401, 'Not authenticated')
      expect((await t.app.inject({ url: `${prefix}/posts/`, headers: withKey(key) })).statusCode).toBe(200)
    }
    expectError(await t.app.inject({ method: 'POST', url: `${prefix}/api-keys/`, payload: { name: 'x', scopes: ['admin'] }, headers: admin.headers }), 422)
  })
})
