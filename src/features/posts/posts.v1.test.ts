import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import { expectError, expectValidationError } from '../../../test/helpers/expect.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin,V1 } from '../../../test/helpers/users.js'
import { clockMoved } from '../../../test/helpers/wait.js'

const POST_READ_KEYS = ['author_id', 'created_at', 'id', 'media_url', 'text', 'title', 'updated_at']

let t: TestApp
let author: LoggedIn
let stranger: LoggedIn
let admin: LoggedIn

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  stranger = await seedAndLogin(t.app)
  admin = await seedAndLogin(t.app, {}, { superuser: true })
})
afterAll(() => t.close())

type Headers = Record<string, string>
const createPost = (payload: unknown, headers: Headers = author.headers) =>
  t.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: payload as object, headers })
const newPost = async (headers: Headers = author.headers, fields: Record<string, unknown> = {}) => {
  const response = await createPost({ title: 'A title', text: 'Some text', ...fields }, headers)
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as { id: number; author_id: number; updated_at: string }
}
const getPost = (id: number | string) => t.app.inject({ url: `${V1}/posts/${id}` })
const patchPost = (id: number | string, payload: unknown, headers: Headers = author.headers) =>
  t.app.inject({ method: 'PATCH', url: `${V1}/posts/${id}`, payload: payload as object, headers })
const deletePost = (id: number, headers: Headers = author.headers, permanent = false) =>
  t.app.inject({ method: 'DELETE', url: `${V1}/posts/${id}${permanent ? '/permanent' : ''}`, headers })

describe('POST /posts/', () => {
  it('creates a post as the caller: 201 with PostRead', async () => {
    const response = await createPost({ title: 'Hello', text: 'World', media_url: 'https://example.com/cat.jpg' })
    expect(response.statusCode, response.body).toBe(201)
    const post = response.json()
    expect(Object.keys(post).sort()).toEqual(POST_READ_KEYS)
    expect(post).toMatchObject({ title: 'Hello', text: 'World', media_url: 'https://example.com/cat.jpg', author_id: author.user.id })
    expect(new Date(post.created_at).toISOString()).toBe(post.created_at)
    expect(post.updated_at).toBe(post.created_at)
  })

  it('defaults media_url to null', async () => {
    expect((await newPost()).author_id).toBe(author.user.id)
    const response = await createPost({ title: 'No media', text: 'x' })
    expect(response.json().media_url).toBeNull()
  })

  it('refuses an anonymous caller with 401', async () => {
    expectError(await createPost({ title: 'Hi', text: 'There' }, {}), 401, 'Not authenticated')
  })

  it('never takes author_id from the body', async () => {
    expectValidationError(await createPost({ title: 'Hi', text: 'There', author_id: stranger.user.id }), ['body', 'author_id'])
  })

  it.each([
    ['title', ''],
    ['title', '   '],
    ['title', 'x'.repeat(101)],
    ['title', 42],
    ['text', ''],
    ['text', '\n\t'],
    ['text', 'x'.repeat(10_001)],
    ['text', ['a']],
    ['media_url', 'not a url'],
    ['media_url', 'ftp://example.com/file'],
    ['media_url', 'javascript:alert(1)'],
    ['media_url', `https://example.com/${'x'.repeat(2048)}`],
    ['media_url', 5],
  ])('gives 422 when %s is %j', async (field, value) => {
    expectValidationError(await createPost({ title: 'T', text: 'X', [field]: value }), ['body', field])
  })

  it.each(['title', 'text'])('gives 422 when %s is missing', async (field) => {
    const payload: Record<string, string> = { title: 'T', text: 'X' }
    delete payload[field]
    expectValidationError(await createPost(payload), ['body', field])
  })

  it('accepts the longest allowed title and text', async () => {
    const response = await createPost({ title: 't'.repeat(100), text: 'x'.repeat(10_000) })
    expect(response.statusCode).toBe(201)
  })
})

describe('GET /posts/{post_id}', () => {
  it('returns the post to anyone', async () => {
    const post = await newPost()
    const response = await getPost(post.id)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ id: post.id, author_id: author.user.id })
  })

  it('gives 404 "Post not found" for an absent id', async () => {
    expectError(await getPost(999999), 404, 'Post not found')
  })

  it.each(['abc', '0', '-3', '1.5', '2147483648'])('gives 422 for the id %s', async (id) => {
    expectValidationError(await getPost(id), ['path', 'post_id'])
  })
})

describe('GET /posts/ (list)', () => {
  let local: TestApp
  let writer: LoggedIn
  let other: LoggedIn
  let ids: number[]
  beforeAll(async () => {
    local = await createTestApp()
    writer = await seedAndLogin(local.app)
    other = await seedAndLogin(local.app)
    ids = []
    const titles = ['Cats are great', 'Dogs are fine', 'About CATS', 'Plain', '100% sure', 'under_score']
    for (const [index, title] of titles.entries()) {
      const headers = index % 2 === 0 ? writer.headers : other.headers
      const response = await local.app.inject({ method: 'POST', url: `${V1}/posts/`, payload: { title, text: `Body ${index}` }, headers })
      ids.push(response.json().id)
    }
  })
  afterAll(() => local.close())

  const list = async (query = '') => {
    const response = await local.app.inject({ url: `${V1}/posts/?${query}` })
    expect(response.statusCode, response.body).toBe(200)
    return (response.json() as { id: number }[]).map((post) => post.id)
  }

  it('returns an array, newest first', async () => {
    expect(await list()).toEqual([...ids].reverse())
  })

  it('pages with page and limit (default 10)', async () => {
    expect(await list('limit=2')).toEqual([ids[5], ids[4]])
    expect(await list('limit=2&page=2')).toEqual([ids[3], ids[2]])
    expect(await list('limit=4&page=3')).toEqual([])
  })

  it('searches title or text case-insensitively, wildcards literally', async () => {
    expect(await list('search=cats')).toEqual([ids[2], ids[0]])
    expect(await list('search=BODY%203')).toEqual([ids[3]])
    expect(await list('search=%25')).toEqual([ids[4]])
    expect(await list('search=_')).toEqual([ids[5]])
    expect(await list('search=')).toHaveLength(6)
  })

  it('filters by author', async () => {
    expect(await list(`author_id=${writer.user.id}`)).toEqual([ids[4], ids[2], ids[0]])
    expect(await list(`author_id=${writer.user.id}&search=cats`)).toEqual([ids[2], ids[0]])
    expect(await list('author_id=999999')).toEqual([])
  })

  it.each([
    ['page=0', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1e1', 'limit'],
    [`search=${'x'.repeat(51)}`, 'search'],
    ['author_id=abc', 'author_id'],
    ['author_id=0', 'author_id'],
  ])('gives 422 for %s', async (query, field) => {
    expectValidationError(await local.app.inject({ url: `${V1}/posts/?${query}` }), ['query', field])
  })

  it('leaves out soft-deleted posts and the posts of soft-deleted authors', async () => {
    await local.app.inject({ method: 'DELETE', url: `${V1}/posts/${ids[0]}`, headers: writer.headers })
    expect(await list()).not.toContain(ids[0])
    await local.app.inject({ method: 'DELETE', url: `${V1}/users/${other.user.id}`, headers: other.headers })
    expect(await list()).toEqual([ids[4], ids[2]])
    expectError(await local.app.inject({ url: `${V1}/posts/${ids[1]}` }), 404, 'Post not found')
  })
})

describe('PATCH /posts/{post_id}', () => {
  it('lets the author edit, and moves updated_at', async () => {
    const post = await newPost()
    await clockMoved()
    const response = await patchPost(post.id, { title: 'Edited', media_url: 'https://example.com/x.png' })
    expect(response.statusCode, response.body).toBe(200)
    const edited = response.json()
    expect(edited).toMatchObject({ id: post.id, title: 'Edited', text: 'Some text', media_url: 'https://example.com/x.png' })
    expect(edited.updated_at > post.updated_at).toBe(true)
    expect((await getPost(post.id)).json().title).toBe('Edited')
  })

  it('clears media_url with null', async () => {
    const post = await newPost(author.headers, { media_url: 'https://example.com/a.png' })
    expect((await patchPost(post.id, { media_url: null })).json().media_url).toBeNull()
  })

  it('keeps other authors out (403) and lets a superuser in', async () => {
    const post = await newPost()
    expectError(await patchPost(post.id, { title: 'Mine now' }, stranger.headers), 403, 'Not enough permissions')
    expect((await getPost(post.id)).json().title).toBe('A title')
    expect((await patchPost(post.id, { title: 'Moderated' }, admin.headers)).statusCode).toBe(200)
  })

  it('needs a login (401) and an existing post (404)', async () => {
    const post = await newPost()
    expectError(await patchPost(post.id, { title: 'x' }, {}), 401, 'Not authenticated')
    expectError(await patchPost(999999, { title: 'x' }), 404, 'Post not found')
  })

  it('refuses an empty body, unknown fields and bad values with 422', async () => {
    const post = await newPost()
    expectError(await patchPost(post.id, {}), 422)
    expectValidationError(await patchPost(post.id, { author_id: stranger.user.id }), ['body', 'author_id'])
    expectValidationError(await patchPost(post.id, { title: '' }), ['body', 'title'])
    expectValidationError(await patchPost(post.id, { text: 'x'.repeat(10_001) }), ['body', 'text'])
    expectValidationError(await patchPost('zero', { title: 'x' }), ['path', 'post_id'])
  })
})

describe('DELETE /posts/{post_id}', () => {
  it('lets the author soft-delete: message, then the post is gone from every read', async () => {
    const post = await newPost()
    const response = await deletePost(post.id)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ message: 'Post deleted' })
    expectError(await getPost(post.id), 404, 'Post not found')
    expectError(await patchPost(post.id, { title: 'Back?' }), 404, 'Post not found')
    expectError(await deletePost(post.id), 404, 'Post not found')
    const row = await t.db.selectFrom('posts').select(['is_deleted', 'deleted_at']).where('id', '=', post.id).executeTakeFirstOrThrow()
    expect(Boolean(row.is_deleted)).toBe(true)
    expect(row.deleted_at).not.toBeNull()
  })

  it('keeps other authors out (403) and lets a superuser in', async () => {
    const post = await newPost()
    expectError(await deletePost(post.id, stranger.headers), 403, 'Not enough permissions')
    expectError(await deletePost(post.id, {}), 401, 'Not authenticated')
    expect((await deletePost(post.id, admin.headers)).statusCode).toBe(200)
  })
})

describe('DELETE /posts/{post_id}/permanent', () => {
  it('is for superusers only, even against the author', async () => {
    const post = await newPost()
    expectError(await deletePost(post.id, author.headers, true), 403, 'Not enough permissions')
    expectError(await deletePost(post.id, {}, true), 401, 'Not authenticated')
  })

  it('removes a live or soft-deleted post from the database', async () => {
    const live = await newPost()
    const gone = await newPost()
    await deletePost(gone.id)
    for (const post of [live, gone]) {
      const response = await deletePost(post.id, admin.headers, true)
      expect(response.statusCode).toBe(200)
      expect(response.json()).toEqual({ message: 'Post deleted from the database' })
      expect(await t.db.selectFrom('posts').select('id').where('id', '=', post.id).executeTakeFirst()).toBeUndefined()
    }
    expectError(await deletePost(live.id, admin.headers, true), 404, 'Post not found')
  })
})

describe('permanent removal of a user', () => {
  it('removes their posts with them', async () => {
    const writer = await seedAndLogin(t.app)
    const post = await newPost(writer.headers)
    const response = await t.app.inject({ method: 'DELETE', url: `${V1}/users/${writer.user.id}/permanent`, headers: admin.headers })
    expect(response.statusCode).toBe(200)
    expect(await t.db.selectFrom('posts').select('id').where('id', '=', post.id).executeTakeFirst()).toBeUndefined()
  })
})
