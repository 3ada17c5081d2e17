// The superusers' report of stored custom fields (docs/api.md "Custom fields"), through HTTP on
// both databases: every declared field and every stored name with how many records hold it, a
// name the schema no longer declares included (kept, shown to nobody); superusers only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

const SCHEMA = {
  posts: { properties: { rating: { type: 'integer', visibility: 'public' }, note: { type: 'string', visibility: 'private' } } },
  users: { properties: { team: { type: 'string', visibility: 'public' } } },
}

let t: TestApp
let author: LoggedIn
let superuser: LoggedIn

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  author = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
  for (const rating of [1, 2]) {
    const created = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: author.headers, payload: { title: 'Rated', text: 'Body', fields: { rating } } })
    expect(created.statusCode, created.body).toBe(201)
  }
  // A value stored under a schema of before, whose field is no longer declared.
  const { id } = await t.db.selectFrom('posts').select('id').where('author_id', '=', author.user.id).orderBy('id').executeTakeFirstOrThrow()
  await t.db.updateTable('posts').set({ fields: JSON.stringify({ rating: 1, mood: 'old' }) }).where('id', '=', id).execute()
  await t.app.inject({ method: 'PATCH', url: `${V2}/users/${author.user.id}`, headers: author.headers, payload: { fields: { team: 'core' } } })
})

afterAll(async () => {
  await t.close()
})

describe('the report of stored custom fields', () => {
  it('names every declared field and every stored name, with how many records hold it; an undeclared one has no level', async () => {
    const response = await t.app.inject({ url: `${V2}/admin/content-fields`, headers: superuser.headers })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      collections: [
        { collection: 'posts', fields: [{ name: 'mood', records: 1, visibility: null }, { name: 'note', records: 0, visibility: 'private' }, { name: 'rating', records: 2, visibility: 'public' }] },
        { collection: 'users', fields: [{ name: 'team', records: 1, visibility: 'public' }] },
        { collection: 'orgs', fields: [] },
      ],
    })
  })

  it('is the superusers\' alone', async () => {
    expect((await t.app.inject({ url: `${V2}/admin/content-fields`, headers: author.headers })).statusCode).toBe(403)
    expect((await t.app.inject({ url: `${V2}/admin/content-fields` })).statusCode).toBe(401)
  })
})
