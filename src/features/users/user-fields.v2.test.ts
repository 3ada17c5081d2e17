// Custom fields on users through HTTP on both databases (docs/api.md "Custom fields"): declared in
// CONTENT_SCHEMA's `users`, written at sign-up and by an edit (a merge patch), shown by level on
// every read of a user (public to everyone, private to the user themselves, server to superusers,
// the admin directory too), written at the server level by superusers only, carried by the user's
// change events without the server ones, and kept when a value is no longer declared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, userFields, V1, V2 } from '../../../test/helpers/users.js'
import { UNINDEXED_FILTER_MAX_ROWS } from '../content-fields/index.js'

const SCHEMA = {
  users: {
    properties: {
      team: { type: 'string', maxLength: 40, visibility: 'public' },
      phone: { type: 'string', pattern: '^\\+[0-9 ]+$', visibility: 'private' },
      born: { type: 'string', format: 'date-time', visibility: 'private' },
      plan: { enum: ['free', 'gold'], visibility: 'server' },
    },
  },
}

interface UserBody {
  id: number
  fields: Record<string, unknown>
}

let t: TestApp
let alice: LoggedIn
let bob: LoggedIn
let superuser: LoggedIn

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who?: LoggedIn, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })
const fieldsOf = async (url: string, who?: LoggedIn) => {
  const response = await call('GET', url, who)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<UserBody>().fields
}
const storedOf = async (id: number) => {
  const row = await t.db.selectFrom('users').select('fields').where('id', '=', id).executeTakeFirstOrThrow()
  return (typeof row.fields === 'string' ? JSON.parse(row.fields) : row.fields) as Record<string, unknown>
}

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  alice = await seedAndLogin(t.app)
  bob = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  const written = await call('PATCH', `${V2}/users/${alice.user.id}`, superuser, { fields: { team: 'core', phone: '+1 555', plan: 'gold' } })
  expect(written.statusCode, written.body).toBe(200)
})

afterAll(async () => {
  await t.close()
})

describe('custom fields on users', () => {
  it('are read by level on every read of a user: public to others, private to the user, server to superusers', async () => {
    const everyone = { team: 'core' }
    const herself = { team: 'core', phone: '+1 555' }
    const all = { team: 'core', phone: '+1 555', plan: 'gold' }
    expect(await fieldsOf(`${V2}/users/${alice.user.id}`)).toEqual(everyone)
    expect(await fieldsOf(`${V2}/users/${alice.user.id}`, bob)).toEqual(everyone)
    expect(await fieldsOf(`${V2}/users/${alice.user.id}`, alice)).toEqual(herself)
    expect(await fieldsOf(`${V2}/users/me`, alice)).toEqual(herself)
    expect(await fieldsOf(`${V2}/users/${alice.user.id}`, superuser)).toEqual(all)
    for (const [who, expected] of [[bob, everyone], [alice, herself], [superuser, all]] as const) {
      for (const url of [`${V2}/users?limit=100`, `${V2}/users/search?limit=100&search=${encodeURIComponent(alice.user.username)}`]) {
        const listed = (await call('GET', url, who)).json<{ data: UserBody[] }>().data
        expect(listed.find((user) => user.id === alice.user.id)?.fields, url).toEqual(expected)
      }
    }
    // The superusers' directory, a managed user, and a ban's answer: every level.
    expect(await fieldsOf(`${V2}/admin/users/${alice.user.id}`, superuser)).toEqual(all)
    const directory = (await call('GET', `${V2}/admin/users?search=${encodeURIComponent(alice.user.username)}`, superuser)).json<{ data: UserBody[] }>().data
    expect(directory.find((user) => user.id === alice.user.id)?.fields).toEqual(all)
    expect((await call('DELETE', `${V2}/admin/users/${alice.user.id}/ban`, superuser)).json<UserBody>().fields).toEqual(all)
    // Version 1's shapes have no custom fields.
    expect((await call('GET', `${V1}/users/${alice.user.id}`, superuser)).json()).not.toHaveProperty('fields')
  })

  it('are given at sign-up, checked against the declaration (422 naming the field), and never at the server level', async () => {
    const signUp = (fields: object) => call('POST', `${V2}/signup`, undefined, { ...userFields(), accept_terms: true, fields })
    const made = await signUp({ team: 'web', born: '1990-05-01T10:00:00+02:00' })
    expect(made.statusCode, made.body).toBe(201)
    expect(made.json<UserBody>().fields).toEqual({ team: 'web', born: '1990-05-01T08:00:00.000Z' })
    const wrong = await signUp({ phone: 'call me' })
    expect(wrong.statusCode).toBe(422)
    expect(wrong.json<{ errors: { loc: string[] }[] }>().errors[0]?.loc).toEqual(['body', 'fields', 'phone'])
    expect((await signUp({ nickname: 'x' })).statusCode).toBe(422)
    const server = await signUp({ plan: 'gold' })
    expect([server.statusCode, server.json<{ code: string }>().code]).toEqual([403, 'field_not_writable'])
  })

  it('are merged by an edit: the fields named replace the stored ones, null takes one away, server fields are the superusers\'', async () => {
    const own = await seedAndLogin(t.app)
    const edit = (who: LoggedIn, fields: object) => call('PATCH', `${V2}/users/${own.user.id}`, who, { fields })
    expect((await edit(own, { team: 'ops', phone: '+44 1' })).json<UserBody>().fields).toEqual({ team: 'ops', phone: '+44 1' })
    expect((await edit(own, { phone: null })).json<UserBody>().fields).toEqual({ team: 'ops' })
    const refused = await edit(own, { plan: 'gold' })
    expect([refused.statusCode, refused.json<{ code: string }>().code]).toEqual([403, 'field_not_writable'])
    expect((await edit(bob, { team: 'stolen' })).statusCode).toBe(403)
    expect((await edit(superuser, { plan: 'free' })).json<UserBody>().fields).toEqual({ team: 'ops', plan: 'free' })
    expect(await storedOf(own.user.id)).toEqual({ team: 'ops', plan: 'free' })
  })

  it('lose no write to another: edits of different fields at once all stay', async () => {
    const own = await seedAndLogin(t.app)
    const edits = ['a', 'b', 'c', 'd', 'e', 'f'].map((team, index) => (index % 2 === 0 ? { team } : { phone: `+${index}` }))
    const answers = await Promise.all(edits.map((fields) => call('PATCH', `${V2}/users/${own.user.id}`, own, { fields })))
    expect(answers.map((answer) => answer.statusCode)).toEqual(edits.map(() => 200))
    const stored = await storedOf(own.user.id)
    expect(Object.keys(stored).sort()).toEqual(['phone', 'team'])
  })

  it('keep a stored value the schema no longer declares through an edit, without showing it', async () => {
    const own = await seedAndLogin(t.app)
    await t.db.updateTable('users').set({ fields: JSON.stringify({ retired: 'kept', team: 'old' }) }).where('id', '=', own.user.id).execute()
    expect(await fieldsOf(`${V2}/users/me`, own)).toEqual({ team: 'old' })
    await call('PATCH', `${V2}/users/${own.user.id}`, own, { fields: { team: 'new' } })
    expect(await storedOf(own.user.id)).toEqual({ retired: 'kept', team: 'new' })
  })

  it("are carried by the user's change events as the user reads them: never a server field", async () => {
    const own = await seedAndLogin(t.app)
    await call('PATCH', `${V2}/users/${own.user.id}`, superuser, { fields: { team: 'ev', phone: '+9', plan: 'gold' } })
    const events = await t.db.selectFrom('change_events').select('data').where('type', '=', 'user.updated').where('user_id', '=', own.user.id).execute()
    expect(events.map((event) => (JSON.parse(event.data) as { fields: unknown }).fields)).toContainEqual({ team: 'ev', phone: '+9' })
    expect(events.some((event) => event.data.includes('gold'))).toBe(false)
  })

  it('are in the OpenAPI document of version 2, by level', async () => {
    const document = (await call('GET', `${V2}/openapi.json`)).json<{ paths: Record<string, Record<string, { responses: Record<string, { content: { 'application/json': { schema: { properties: { fields: { properties: Record<string, { 'x-visibility'?: string }> } } } } } }> }>> }>()
    const shown = document.paths['/api/v2/users/{user_id}']!.get!.responses['200']!.content['application/json'].schema.properties.fields.properties
    expect(Object.fromEntries(Object.entries(shown).map(([name, field]) => [name, field['x-visibility']]))).toEqual({ team: 'public', phone: 'private', born: 'private', plan: 'server' })
  })

  it.each(['/users?', '/users/search?'])('filter %s by column and field, each field only where its level is read: refused, or false on others\' rows, never a side channel', async (list) => {
    const filtered = async (filter: string, who?: LoggedIn) => {
      const response = await call('GET', `${V2}${list}limit=100&filter=${encodeURIComponent(filter)}`, who)
      if (response.statusCode !== 200) return { status: response.statusCode, code: response.json<{ code: string }>().code }
      return { ids: response.json<{ data: UserBody[] }>().data.map((user) => user.id) }
    }
    expect(await filtered('fields.team = "core"')).toEqual({ ids: [alice.user.id] })
    expect(await filtered(`username = "${alice.user.username}" && fields.team ~ "co"`)).toEqual({ ids: [alice.user.id] })
    expect(await filtered(`is_verified = false && id = ${alice.user.id} && created_at > "2000-01-01"`)).toEqual({ ids: [alice.user.id] })
    expect(await filtered(`is_verified = true && id = ${alice.user.id}`)).toEqual({ ids: [] })
    // A private field: refused anonymously, false on others' rows for another user, her own for her.
    expect(await filtered('fields.phone = "+1 555"')).toEqual({ status: 400, code: 'invalid_filter' })
    expect(await filtered('fields.phone = "+1 555"', bob)).toEqual({ ids: [] })
    expect(await filtered('fields.phone != "+0"', bob)).toEqual({ ids: [] })
    expect(await filtered('fields.phone = "+1 555"', alice)).toEqual({ ids: [alice.user.id] })
    // A server field: superusers only.
    expect(await filtered('fields.plan = "gold"', alice)).toEqual({ status: 400, code: 'invalid_filter' })
    expect(await filtered('fields.plan = "gold" && fields.team = "core"', superuser)).toEqual({ ids: [alice.user.id] })
    // Only the documented columns: no secret, no address.
    for (const filter of ['hashed_password = "x"', 'email ~ "@"', 'is_superuser = true', 'id = "1; drop table users"']) expect(await filtered(filter, superuser), filter).toEqual({ status: 400, code: 'invalid_filter' })
  })

  it(`refuse a filter no index narrows past ${UNINDEXED_FILTER_MAX_ROWS.toLocaleString('en')} users (422 filter_too_broad), and take one narrowed by id or username`, async () => {
    const now = new Date().toISOString()
    for (let batch = 0; batch < 11; batch++) {
      const rows = Array.from({ length: 1_000 }, (_, i) => {
        const n = `bulk${batch * 1_000 + i}`
        return { name: n, username: n, email: `${n}@example.com`, hashed_password: '!', profile_image_url: '', created_at: now, updated_at: now }
      })
      await t.db.insertInto('users').values(rows).execute()
    }
    for (const list of ['/users?', '/users/search?name=a&']) {
      const broad = await call('GET', `${V2}${list}filter=${encodeURIComponent('fields.team = "core"')}`)
      expect([broad.statusCode, broad.json<{ code: string }>().code]).toEqual([422, 'filter_too_broad'])
    }
    const narrowed = await call('GET', `${V2}/users?filter=${encodeURIComponent(`username = "${alice.user.username}" && fields.team = "core"`)}`)
    expect(narrowed.json<{ data: UserBody[] }>().data.map((user) => user.id)).toEqual([alice.user.id])
  })
})
