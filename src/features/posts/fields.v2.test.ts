// Custom fields on posts through HTTP on both databases (docs/api.md "Custom fields"): declared in
// CONTENT_SCHEMA, validated on every write (422 naming the field), merged by an edit, written at
// the server level by superusers only, kept when the schema changes, and shown in the OpenAPI
// document. Who reads which level on every path is the access matrix's (post-access.v2.test.ts).
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp, TEST_SECRET_KEY } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../logger.js'
import { FIELDS_MAX_BYTES } from '../content-fields/index.js'

const SCHEMA = {
  posts: {
    properties: {
      rating: { type: 'integer', minimum: 1, maximum: 5, visibility: 'public', description: 'Stars' },
      kind: { enum: ['news', 'howto'], visibility: 'public' },
      tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 3, uniqueItems: true, visibility: 'public' },
      due: { type: 'string', format: 'date-time', visibility: 'private' },
      note: { type: 'string', maxLength: 10_000, visibility: 'private' },
      summary: { type: 'string', maxLength: 10_000, visibility: 'private' },
      featured: { type: 'boolean', visibility: 'public' },
      crm_id: { type: 'string', pattern: '^c-[0-9]+$', visibility: 'server' },
    },
    required: ['kind'],
  },
}

interface FieldsBody {
  id: number
  fields: Record<string, unknown>
}

let t: TestApp
let author: LoggedIn
let superuser: LoggedIn

const send = (app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH', url: string, who: LoggedIn, payload?: object) =>
  app.inject({ method, url, headers: who.headers, ...(payload === undefined ? {} : { payload }) })

async function write(fields: object): Promise<FieldsBody> {
  const response = await send(t.app, 'POST', `${V2}/posts`, author, { title: 'Fielded', text: 'Body', fields })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<FieldsBody>()
}

const storedOf = async (id: number) => {
  const row = await t.db.selectFrom('posts').select('fields').where('id', '=', id).executeTakeFirstOrThrow()
  return (typeof row.fields === 'string' ? JSON.parse(row.fields) : row.fields) as Record<string, unknown>
}

beforeAll(async () => {
  t = await createTestApp({ CONTENT_SCHEMA: JSON.stringify(SCHEMA) })
  author = await seedAndLogin(t.app)
  superuser = await seedAndLogin(t.app, {}, { superuser: true })
})

afterAll(async () => {
  await t.close()
})

describe('custom fields on posts', () => {
  it('stores the declared fields a create names and reads them back on every read', async () => {
    // A date-time is stored as the instant in UTC to the millisecond, however it was written.
    const post = await write({ kind: 'howto', rating: 4, tags: ['go', 'sql'], due: '2027-01-01T02:00:00+02:00', featured: false })
    expect(post.fields).toEqual({ kind: 'howto', rating: 4, tags: ['go', 'sql'], due: '2027-01-01T00:00:00.000Z', featured: false })
    expect((await send(t.app, 'GET', `${V2}/posts/${post.id}`, author)).json<FieldsBody>().fields).toEqual(post.fields)
    const listed = (await send(t.app, 'GET', `${V2}/users/me/posts`, author)).json<{ data: FieldsBody[] }>().data
    expect(listed.find((item) => item.id === post.id)?.fields).toEqual(post.fields)
  })

  it.each([
    ['a value of the wrong type', { kind: 'news', rating: 'five' }, '/fields/rating'],
    ['a value out of range', { kind: 'news', rating: 6 }, '/fields/rating'],
    ['a value outside the enum', { kind: 'opinion' }, '/fields/kind'],
    ['a date that is no date-time', { kind: 'news', due: 'tomorrow' }, '/fields/due'],
    ['too many items', { kind: 'news', tags: ['a', 'b', 'c', 'd'] }, '/fields/tags'],
    ['an item twice', { kind: 'news', tags: ['a', 'a'] }, '/fields/tags'],
    ['a field nobody declared', { kind: 'news', colour: 'red' }, '/fields/colour'],
    ['a required field left out', { rating: 2 }, '/fields/kind'],
    ['a text that misses its pattern (as a superuser)', { kind: 'news', crm_id: 'x' }, '/fields/crm_id'],
  ])('refuses %s with 422 naming the field', async (_case, fields, path) => {
    const who = path === '/fields/crm_id' ? superuser : author
    const response = await send(t.app, 'POST', `${V2}/posts`, who, { title: 'Bad', text: 'Body', fields })
    expect(response.statusCode, response.body).toBe(422)
    const body = response.json<{ code: string; detail: string; errors: { loc: string[] }[] }>()
    expect(body.code).toBe('validation_failed')
    expect(body.errors.map((error) => error.loc.join('/')), body.detail).toContain(`body${path}`)
  })

  it('takes a create without fields only when no field is required', async () => {
    const response = await send(t.app, 'POST', `${V2}/posts`, author, { title: 'Bare', text: 'Body' })
    expect(response.statusCode).toBe(422)
    expect(response.json<{ detail: string }>().detail).toMatch(/fields/)
  })

  it('merges an edit: the named fields replace, null takes one away, the others stay; a required one cannot be taken away', async () => {
    const post = await write({ kind: 'news', rating: 2, featured: true })
    const edited = await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { rating: 5, featured: null, tags: ['x'] } })
    expect(edited.statusCode, edited.body).toBe(200)
    expect(edited.json<FieldsBody>().fields).toEqual({ kind: 'news', rating: 5, tags: ['x'] })
    const refused = await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { kind: null } })
    expect(refused.statusCode).toBe(422)
    expect(await storedOf(post.id)).toEqual({ kind: 'news', rating: 5, tags: ['x'] })
  })

  it('lets only a superuser write a server field (403 field_not_writable), and shows it to superusers only', async () => {
    const refused = await send(t.app, 'POST', `${V2}/posts`, author, { title: 'Sneaky', text: 'Body', fields: { kind: 'news', crm_id: 'c-1' } })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'field_not_writable', detail: expect.stringContaining('crm_id') })
    const post = await write({ kind: 'news' })
    expect((await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { crm_id: 'c-2' } })).statusCode).toBe(403)
    const byAdmin = await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, superuser, { fields: { crm_id: 'c-2' } })
    expect(byAdmin.statusCode, byAdmin.body).toBe(200)
    expect(byAdmin.json<FieldsBody>().fields).toEqual({ kind: 'news', crm_id: 'c-2' })
    // Its author edits the post and never sees nor loses the server's field.
    const edited = await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { rating: 1 } })
    expect(edited.json<FieldsBody>().fields).toEqual({ kind: 'news', rating: 1 })
    expect(await storedOf(post.id)).toEqual({ kind: 'news', crm_id: 'c-2', rating: 1 })
  })

  it(`refuses fields that together outgrow ${FIELDS_MAX_BYTES} bytes`, async () => {
    // 10,000 characters of four bytes each: two such fields are too much together.
    const post = await write({ kind: 'news', note: '😀'.repeat(10_000) })
    const tooMuch = await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { summary: '😀'.repeat(10_000) } })
    expect(tooMuch.statusCode).toBe(422)
    expect(tooMuch.json()).toMatchObject({ code: 'validation_failed', detail: expect.stringContaining('fields') })
  })

  it("carries the author's public and private fields in their data export, not the server's", async () => {
    const post = await write({ kind: 'news', note: 'mine' })
    await send(t.app, 'PATCH', `${V2}/posts/${post.id}`, superuser, { fields: { crm_id: 'c-9' } })
    for await (const exported of t.app.services.posts.everyPostOf(author.user.id)) {
      if (exported.id === post.id) expect(exported.fields).toEqual({ kind: 'news', note: 'mine' })
    }
  })

  it('keeps every stored value when the schema changes: a field no longer declared, or no longer valid, is not shown, and comes back with its declaration', async () => {
    const post = await write({ kind: 'howto', rating: 4, tags: ['kept'] })
    // rating is gone, tags became a number: neither is shown, both stay stored through an edit.
    const changed = { posts: { properties: { kind: SCHEMA.posts.properties.kind, tags: { type: 'integer', visibility: 'public' }, featured: SCHEMA.posts.properties.featured } } }
    const other = await buildApp({ config: loadConfig({ ...t.env, CONTENT_SCHEMA: JSON.stringify(changed) }), secretKey: TEST_SECRET_KEY, prepare: false, logger: createLogger('silent') })
    try {
      expect((await send(other, 'GET', `${V2}/posts/${post.id}`, author)).json<FieldsBody>().fields).toEqual({ kind: 'howto' })
      const edited = await send(other, 'PATCH', `${V2}/posts/${post.id}`, author, { fields: { featured: true } })
      expect(edited.statusCode, edited.body).toBe(200)
      expect(edited.json<FieldsBody>().fields).toEqual({ kind: 'howto', featured: true })
    } finally {
      await other.close()
    }
    expect(await storedOf(post.id)).toEqual({ kind: 'howto', rating: 4, tags: ['kept'], featured: true })
    expect((await send(t.app, 'GET', `${V2}/posts/${post.id}`, author)).json<FieldsBody>().fields).toEqual({ kind: 'howto', rating: 4, tags: ['kept'], featured: true })
  })

  it('documents the declared fields in the OpenAPI document: their types, bounds, levels and which are required', async () => {
    const document = (await t.app.inject({ url: `${V2}/openapi.json` })).json<{ paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> }>()
    const read = document.paths['/api/v2/posts/{post_id}']!.get!.responses['200']!.content!['application/json']!.schema as { properties: { fields: { properties: Record<string, { type?: string; 'x-visibility'?: string; maximum?: number }> } } }
    expect(Object.keys(read.properties.fields.properties)).toEqual(Object.keys(SCHEMA.posts.properties))
    expect(read.properties.fields.properties.rating).toMatchObject({ type: 'integer', maximum: 5, 'x-visibility': 'public' })
    expect(read.properties.fields.properties.crm_id).toMatchObject({ 'x-visibility': 'server' })
    const create = document.paths['/api/v2/posts']!.post!.requestBody!.content['application/json']!.schema as { required: string[]; properties: { fields: { required: string[] } } }
    expect(create.required).toContain('fields')
    expect(create.properties.fields.required).toEqual(['kind'])
  })
})
