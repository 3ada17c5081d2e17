// Posts' addresses through HTTP on both databases: a slug made from the title and unique in its
// owner's scope (however many posts share a title, and however many are written at once), read by
// owner and slug under the post policy, edited with the old address redirecting, kept or made
// unique when the post moves to an organization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'
import { migrateTo, migrateToLatest } from '../../db/migrate.js'

interface PostBody {
  id: number
  slug: string
  title: string
  org_id: number | null
}

let t: TestApp
let author: LoggedIn
let other: LoggedIn
let org: { id: number; slug: string }

const send = (who: LoggedIn | null, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${V2}${url}`, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) })

async function write(who: LoggedIn, fields: object): Promise<PostBody> {
  const response = await send(who, 'POST', '/posts', { text: 'Body', ...fields })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<PostBody>()
}

const bySlug = (who: LoggedIn | null, owner: string, slug: string) => send(who, 'GET', `/posts/by-slug/${owner}/${slug}`)

beforeAll(async () => {
  t = await createTestApp()
  author = await seedAndLogin(t.app)
  other = await seedAndLogin(t.app)
  org = (await send(author, 'POST', '/orgs', { name: `Slugs ${Date.now()}` })).json()
})

afterAll(async () => {
  await t.close()
})

describe('slugs', () => {
  it("makes a post's slug from its title, unique among its owner's posts, and reads it by owner and slug", async () => {
    const first = await write(author, { title: 'Hello, World! Ça va?' })
    expect(first.slug).toBe('hello-world-ca-va')
    expect((await write(author, { title: 'Hello, world; ça va' })).slug).toBe('hello-world-ca-va-2')
    expect((await write(other, { title: 'Hello, World! Ça va?' })).slug).toBe('hello-world-ca-va')
    const inOrg = await write(author, { title: 'Hello, World! Ça va?', org_id: org.id })
    expect(inOrg.slug).toBe('hello-world-ca-va')
    expect((await write(author, { title: '🚀 🚀' })).slug).toBe('post')

    const read = await bySlug(null, author.user.username, first.slug)
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toMatchObject({ id: first.id, slug: first.slug, title: first.title })
    expect((await bySlug(null, author.user.username.toUpperCase(), first.slug)).json()).toMatchObject({ id: first.id })
    expect((await bySlug(null, org.slug, first.slug)).json()).toMatchObject({ id: inOrg.id })
    for (const [owner, slug] of [[author.user.username, 'no-such-post'], ['nobody-at-all', first.slug]]) {
      const missing = await bySlug(null, owner!, slug!)
      expect(missing.statusCode).toBe(404)
      expect(missing.json()).toMatchObject({ code: 'post_not_found' })
    }
    expect((await bySlug(null, author.user.username, 'Not A Slug')).statusCode).toBe(422)
  })

  it('takes a slug given at writing or in an edit (409 post_slug_taken when the owner has it), keeps it when the title changes, and redirects the old one', async () => {
    const taken = await write(author, { title: 'Taken', slug: 'my-chosen-address' })
    expect(taken.slug).toBe('my-chosen-address')
    const again = await send(author, 'POST', '/posts', { title: 'Taken again', text: 'Body', slug: 'my-chosen-address' })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'post_slug_taken' })
    expect((await send(author, 'POST', '/posts', { title: 'Bad', text: 'Body', slug: 'Not--valid' })).statusCode).toBe(422)

    const post = await write(author, { title: 'Before the edit' })
    const renamed = await send(author, 'PATCH', `/posts/${post.id}`, { title: 'After the edit' })
    expect(renamed.json()).toMatchObject({ title: 'After the edit', slug: 'before-the-edit' })
    expect((await send(author, 'PATCH', `/posts/${post.id}`, { slug: 'my-chosen-address' })).json()).toMatchObject({ code: 'post_slug_taken' })
    const moved = await send(author, 'PATCH', `/posts/${post.id}`, { slug: 'a-better-address' })
    expect(moved.json()).toMatchObject({ slug: 'a-better-address' })
    expect((await bySlug(null, author.user.username, 'a-better-address')).json()).toMatchObject({ id: post.id })
    const old = await bySlug(null, author.user.username, 'before-the-edit')
    expect(old.statusCode).toBe(308)
    expect(old.headers.location).toBe(`/api/v2/posts/${post.id}`)
    // The same slug again changes nothing; the post's own slug is never "taken" by itself.
    expect((await send(author, 'PATCH', `/posts/${post.id}`, { slug: 'a-better-address' })).statusCode).toBe(200)
    // A new post may take the old address: the live post wins over the redirect.
    const newcomer = await write(author, { title: 'Before the edit' })
    expect(newcomer.slug).toBe('before-the-edit')
    expect((await bySlug(null, author.user.username, 'before-the-edit')).json()).toMatchObject({ id: newcomer.id })
  })

  it('reads by slug under the post policy, its old addresses too', async () => {
    const secret = await write(author, { title: 'Only mine', visibility: 'private' })
    expect((await bySlug(author, author.user.username, secret.slug)).statusCode).toBe(200)
    for (const who of [null, other]) expect((await bySlug(who, author.user.username, secret.slug)).json()).toMatchObject({ code: 'post_not_found' })
    expect((await send(author, 'PATCH', `/posts/${secret.id}`, { slug: 'still-only-mine' })).statusCode).toBe(200)
    expect((await bySlug(author, author.user.username, secret.slug)).statusCode).toBe(308)
    for (const who of [null, other]) expect((await bySlug(who, author.user.username, secret.slug)).statusCode).toBe(404)
  })

  it('keeps the slug when a post moves to an organization where it is free, makes it unique where it is not, and redirects the old address', async () => {
    const free = await write(author, { title: `Free in the org ${Date.now()}` })
    const movedFree = await send(author, 'PATCH', `/posts/${free.id}`, { org_id: org.id })
    expect(movedFree.json()).toMatchObject({ org_id: org.id, slug: free.slug })
    expect((await bySlug(null, org.slug, free.slug)).json()).toMatchObject({ id: free.id })
    expect((await bySlug(null, author.user.username, free.slug)).statusCode).toBe(308)

    await write(author, { title: 'Clash', org_id: org.id })
    const clash = await write(author, { title: 'Clash' })
    const movedClash = await send(author, 'PATCH', `/posts/${clash.id}`, { org_id: org.id })
    expect(movedClash.json()).toMatchObject({ slug: 'clash-2' })
  })

  it('gives every post its own slug however many share a title, written one after another or at once', async () => {
    const writer = await seedAndLogin(t.app)
    const slugs = []
    for (let i = 0; i < 11; i++) slugs.push((await write(writer, { title: 'Untitled' })).slug)
    expect(slugs.slice(0, 9)).toEqual(['untitled', ...Array.from({ length: 8 }, (_, i) => `untitled-${i + 2}`)])
    for (const slug of slugs.slice(9)) expect(slug).toMatch(/^untitled-[a-z0-9]{6}$/)
    const atOnce = await Promise.all(Array.from({ length: 10 }, () => send(writer, 'POST', '/posts', { title: 'All at once', text: 'Body' })))
    expect(atOnce.map((response) => response.statusCode)).toEqual(Array(10).fill(201))
    expect(new Set(atOnce.map((response) => response.json<PostBody>().slug)).size).toBe(10)
  })
})

// Last: it takes the slugs away and makes them again for every post of the database.
describe('the migration', () => {
  it("gives the posts written before it a slug from their titles, unique in each owner's scope", async () => {
    // Made before going back: today's service writes the users' columns of today.
    const writer = await seedAndLogin(t.app)
    const down = await migrateTo(t.db, '2026-12-10-01-comment-thread-counts')
    expect(down.error).toBeUndefined()
    expect(down.results?.map((result) => result.migrationName).at(-1)).toBe('2026-12-10-02-post-slugs')
    const now = new Date().toISOString()
    // Rows as the schema of that time takes them (the service of today writes a slug).
    const row = (title: string, orgId: number | null) => ({ author_id: writer.user.id, title, text: 'Old', org_id: orgId, created_at: now, updated_at: now })
    const ids = []
    for (const [title, orgId] of [['An old post', null], ['An old post', null], ['An old post', org.id], ['☃', null]] as const) {
      ids.push((await t.db.insertInto('posts').values(row(title, orgId) as never).returning('id').executeTakeFirstOrThrow()).id)
    }
    await migrateToLatest(t.db)
    const slugs = await t.db.selectFrom('posts').select(['id', 'slug', 'slug_scope']).where('id', 'in', ids).orderBy('id').execute()
    expect(slugs).toEqual([
      { id: ids[0], slug: 'an-old-post', slug_scope: `u:${writer.user.id}` },
      { id: ids[1], slug: `an-old-post-${ids[1]}`, slug_scope: `u:${writer.user.id}` },
      { id: ids[2], slug: 'an-old-post', slug_scope: `o:${org.id}` },
      { id: ids[3], slug: 'post', slug_scope: `u:${writer.user.id}` },
    ])
    expect((await bySlug(null, writer.user.username, `an-old-post-${ids[1]}`)).json()).toMatchObject({ id: ids[1] })
  })
})
