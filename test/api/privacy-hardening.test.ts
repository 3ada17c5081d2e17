// What users of a well-kept API expect beyond the audit's findings: nothing cached that holds
// personal data or tokens, no passwords off the common-password list, and emails that can be
// kept between a user and the superusers (EMAIL_VISIBILITY=owner).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { TestApp } from '../helpers/app.js'
import { createTestApp,TEST_SECRET_KEY } from '../helpers/app.js'
import { expectError } from '../helpers/expect.js'
import type { LoggedIn } from '../helpers/users.js'
import { login, seedAndLogin, seedUser, userFields,V1, V2 } from '../helpers/users.js'

describe('Cache-Control: no-store', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('is on every answer that carries personal data or tokens, in both versions', async () => {
    const user = await seedUser(t.app)
    for (const prefix of [V1, V2]) {
      const logged = await t.app.inject({ method: 'POST', url: `${prefix}/login`, payload: { username: user.username, password: user.password } })
      const { access_token: access, refresh_token: refresh } = logged.json()
      const headers = { authorization: `Bearer ${access}` }
      const responses = [
        logged,
        await t.app.inject({ method: 'POST', url: `${prefix}/refresh`, payload: { refresh_token: refresh } }),
        await t.app.inject({ url: `${prefix}/users/me`, headers }),
        await t.app.inject({ url: `${prefix}/users/${user.id}`, headers }),
        await t.app.inject({ url: `${prefix}/users/${user.id}` }),
        await t.app.inject({ url: `${prefix}/users/` }),
        await t.app.inject({ url: `${prefix}/users/search?name=user` }),
        await t.app.inject({ url: `${prefix}/users/me` }),
      ]
      for (const response of responses) expect(response.headers['cache-control']).toBe('no-store')
    }
  })
})

describe('common and guessable passwords', () => {
  let t: TestApp
  let admin: LoggedIn
  beforeAll(async () => {
    t = await createTestApp()
    admin = await seedAndLogin(t.app, {}, { superuser: true })
  })
  afterAll(() => t.close())

  const signUp = (prefix: string, fields: object) =>
    t.app.inject({
      method: 'POST',
      url: `${prefix}/users/`,
      payload: prefix === V2 ? { ...fields, accept_terms: true } : fields,
      headers: admin.headers,
    })

  it.each([V1, V2])('are refused with 422 "Password is too common" (%s)', async (prefix) => {
    for (const password of ['password', 'Password123', 'qwertyuiop', 'iloveyou1']) {
      const response = await signUp(prefix, userFields({ password }))
      expectError(response, 422, 'Password is too common')
      expect(response.json().errors).toEqual([{ loc: ['body', 'password'], msg: 'Password is too common', type: 'password_too_common' }])
    }
    const same = userFields({ username: 'ada_lovelace_99' })
    expectError(await signUp(prefix, { ...same, password: 'Ada_Lovelace_99' }), 422, 'Password is too common')
    expectError(await signUp(prefix, { ...same, password: same.email }), 422, 'Password is too common')
    expect((await signUp(prefix, userFields({ password: 'violet sunrise 42' }))).statusCode).toBe(201)
  })

  it('stop an administrator account with a common password at start, naming ADMIN_PASSWORD', async () => {
    const env = { ...t.env, ADMIN_EMAIL: 'boss@example.com', ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: 'password1' }
    await expect(buildApp({ config: loadConfig(env), secretKey: TEST_SECRET_KEY })).rejects.toThrow(/ADMIN_PASSWORD: Password is too common/)
  })
})

describe('EMAIL_VISIBILITY=owner', () => {
  let t: TestApp
  let alice: LoggedIn
  let bob: LoggedIn
  let admin: LoggedIn
  beforeAll(async () => {
    t = await createTestApp({ EMAIL_VISIBILITY: 'owner' })
    alice = await seedAndLogin(t.app, { name: 'Alice Owner' })
    bob = await seedAndLogin(t.app, { name: 'Bob Other' })
    admin = await seedAndLogin(t.app, {}, { superuser: true })
  })
  afterAll(() => t.close())

  const emailOf = (body: Record<string, unknown>) => body.email

  it.each([V1, V2])('shows an email only to its user and to superusers, on every read (%s)', async (prefix) => {
    const read = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url: `${prefix}${url}`, headers })
    // Anonymous and other users: no email, anywhere.
    for (const headers of [{}, bob.headers]) {
      // Left out, not sent as null.
      expect((await read(`/users/${alice.user.id}`, headers)).json()).not.toHaveProperty('email')
      const listed = (await read('/users/?items_per_page=100&limit=100', headers)).json().data as Record<string, unknown>[]
      expect(listed.find((user) => user.id === alice.user.id)).toBeDefined()
      expect(listed.find((user) => user.id === alice.user.id)).not.toHaveProperty('email')
      const searched = (await read('/users/search?name=alice', headers)).json()
      const hits = (Array.isArray(searched) ? searched : searched.data) as Record<string, unknown>[]
      expect(hits.map((user) => user.email)).toEqual([undefined])
    }
    // The user and the superusers see it.
    expect(emailOf((await read(`/users/${alice.user.id}`, alice.headers)).json())).toBe(alice.user.email)
    expect(emailOf((await read('/users/me', alice.headers)).json())).toBe(alice.user.email)
    expect(emailOf((await read(`/users/${alice.user.id}`, admin.headers)).json())).toBe(alice.user.email)
    const asBob = (await read('/users/?items_per_page=100&limit=100', bob.headers)).json().data as Record<string, unknown>[]
    expect(asBob.find((user) => user.id === bob.user.id)?.email).toBe(bob.user.email)
  })

  it('is not the default: public visibility shows emails to everyone, as the specification does', async () => {
    const open = await createTestApp()
    try {
      const user = await seedUser(open.app)
      expect((await open.app.inject({ url: `${V1}/users/${user.id}` })).json().email).toBe(user.email)
    } finally {
      await open.close()
    }
  })

  it('is described in both OpenAPI documents, each from its own default', async () => {
    // v1 is public unless EMAIL_VISIBILITY=owner; v2 is the owner's unless EMAIL_VISIBILITY=public.
    for (const [prefix, setting] of [[V1, 'EMAIL_VISIBILITY=owner'], [V2, 'EMAIL_VISIBILITY=public']] as const) {
      const doc = (await t.app.inject({ url: `${prefix}/openapi.json` })).body
      expect(doc, prefix).toContain(setting)
    }
  })

  it('still lets the user log in by email', async () => {
    await expect(login(t.app, alice.user.email, alice.user.password)).resolves.toBeDefined()
  })
})
