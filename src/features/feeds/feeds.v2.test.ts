// Feeds through HTTP on both databases (docs/api.md "Feeds"), each document read back by a real
// feed parser (feedsmith): RSS 2.0, Atom and JSON Feed of the whole service, an author, an
// organization and a tag hold the newest public, published posts only, link to POST_URL, carry a
// Markdown post's sanitized HTML and a plain one's escaped text; an ETag or Last-Modified the
// reader has gets 304, and a change of a post changes the ETag; an unknown owner is 404.
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { TestApp } from '../../../test/helpers/app.js'
import { createTestApp } from '../../../test/helpers/app.js'
import type { LoggedIn } from '../../../test/helpers/users.js'
import { seedAndLogin, V2 } from '../../../test/helpers/users.js'

let t: TestApp
let author: LoggedIn
let member: LoggedIn
let org: { id: number; slug: string }
const tag = `feed${Date.now() % 1000000}`
const posts: Record<string, { id: number; slug: string }> = {}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url: `${V2}${url}`, headers })

async function write(name: string, who: LoggedIn, payload: object): Promise<void> {
  const response = await t.app.inject({ method: 'POST', url: `${V2}/posts`, headers: who.headers, payload: { text: `Text of ${name}`, tags: [tag], ...payload, title: `${name} ${tag}` } })
  expect(response.statusCode, response.body).toBe(201)
  posts[name] = response.json()
}

/** The items' titles of a feed in each format, read by the parser, and the links of the first. */
async function read(path: string): Promise<{ titles: string[][]; links: string[] }> {
  const titles: string[][] = []
  const links: string[] = []
  for (const format of ['rss', 'atom', 'json'] as const) {
    const response = await get(`/feeds/${path}.${format}`)
    expect(response.statusCode, `${path}.${format}: ${response.body}`).toBe(200)
    expect(response.headers['content-type']).toBe({ rss: 'application/rss+xml; charset=utf-8', atom: 'application/atom+xml; charset=utf-8', json: 'application/feed+json; charset=utf-8' }[format])
    if (format === 'rss') {
      const feed = parseRssFeed(response.body)
      titles.push((feed.items ?? []).map((item) => item.title ?? ''))
      links.push(feed.items?.[0]?.link ?? '')
    } else if (format === 'atom') {
      const feed = parseAtomFeed(response.body)
      // An Atom text construct: its value, whatever its type.
      titles.push((feed.entries ?? []).map((entry) => (typeof entry.title === 'string' ? entry.title : ((entry.title as { value?: string } | undefined)?.value ?? ''))))
      links.push(feed.entries?.[0]?.links?.[0]?.href ?? '')
    } else {
      const feed = parseJsonFeed(response.body)
      titles.push((feed.items ?? []).map((item) => item.title ?? ''))
      links.push(feed.items?.[0]?.url ?? '')
    }
  }
  return { titles, links }
}

beforeAll(async () => {
  t = await createTestApp({ POST_URL: 'https://app.example/p/{slug}?id={id}' })
  author = await seedAndLogin(t.app)
  member = await seedAndLogin(t.app)
  org = (await t.app.inject({ method: 'POST', url: `${V2}/orgs`, headers: member.headers, payload: { name: `Feeds ${tag}` } })).json()
  await write('plain', author, { text: 'Plain <b>not bold</b> & more' })
  await write('<img src=x onerror=alert(1)>', member, {})
  await write('markdown', author, { text: '**Bold** and <script>alert(1)</script>', format: 'markdown' })
  await write('private', author, { visibility: 'private' })
  await write('unlisted', author, { visibility: 'unlisted' })
  await write('draft', author, { status: 'draft' })
  await write('org public', member, { org_id: org.id })
  await write('org only', member, { org_id: org.id, visibility: 'org' })
})

afterAll(async () => {
  await t.close()
})

describe('feeds', () => {
  it("of an author, an organization and a tag, in every format: the newest public, published posts only, linked to POST_URL", async () => {
    const byAuthor = await read(`users/${author.user.username}/posts`)
    for (const titles of byAuthor.titles) expect(titles).toEqual([`markdown ${tag}`, `plain ${tag}`])
    for (const link of byAuthor.links) expect(link).toBe(`https://app.example/p/${posts.markdown!.slug}?id=${posts.markdown!.id}`)
    for (const titles of (await read(`orgs/${org.slug}/posts`)).titles) expect(titles).toEqual([`org public ${tag}`])
    // A title is text in every format: markup in it is read back as the characters it was written with.
    const img = `<img src=x onerror=alert(1)> ${tag}`
    for (const titles of (await read(`tags/${tag.toUpperCase()}/posts`)).titles) expect(titles.map((title) => title.replace(/&lt;/g, '<').replace(/&gt;/g, '>'))).toEqual([`org public ${tag}`, `markdown ${tag}`, img, `plain ${tag}`])
    for (const titles of (await read('posts')).titles) expect(titles.slice(0, 1)).toEqual([`org public ${tag}`])
    for (const format of ['rss', 'atom']) expect((await get(`/feeds/tags/${tag}/posts.${format}`)).body).not.toContain('<img')
  })

  it("carries a Markdown post's sanitized HTML and a plain post's text escaped", async () => {
    const feed = parseJsonFeed((await get(`/feeds/users/${author.user.username}/posts.json`)).body)
    const [markdown, plain] = feed.items ?? []
    expect(markdown?.content_html).toContain('<strong>Bold</strong>')
    expect(markdown?.content_html).not.toContain('<script')
    expect(plain?.content_html).toBe('<p>Plain &lt;b&gt;not bold&lt;/b&gt; &amp; more</p>')
    const rss = (await get(`/feeds/users/${author.user.username}/posts.rss`)).body
    expect(rss).not.toContain('<script')
  })

  it('answers 304 to the ETag or the Last-Modified the reader has, and a new ETag once a post changes', async () => {
    const first = await get(`/feeds/tags/${tag}/posts.atom`)
    const etag = first.headers.etag as string
    const lastModified = first.headers['last-modified'] as string
    expect(etag).toMatch(/^"[\w-]+"$/)
    expect((await get(`/feeds/tags/${tag}/posts.atom`, { 'if-none-match': etag })).statusCode).toBe(304)
    expect((await get(`/feeds/tags/${tag}/posts.atom`, { 'if-modified-since': lastModified })).statusCode).toBe(304)
    expect((await get(`/feeds/tags/${tag}/posts.atom`, { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() })).statusCode).toBe(200)
    const edited = await t.app.inject({ method: 'PATCH', url: `${V2}/posts/${posts.plain!.id}`, headers: author.headers, payload: { title: `edited ${tag}` } })
    expect(edited.statusCode).toBe(200)
    const after = await get(`/feeds/tags/${tag}/posts.atom`, { 'if-none-match': etag })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(etag)
  })

  it('is 404 feed_not_found for an unknown author or organization, 422 for an unknown format', async () => {
    for (const path of ['/feeds/users/nobody-here/posts.rss', '/feeds/orgs/no-such-org/posts.json']) {
      const response = await get(path)
      expect(response.statusCode, path).toBe(404)
      expect(response.json<{ code: string }>().code).toBe('feed_not_found')
    }
    expect((await get('/feeds/posts.xml')).statusCode).toBe(422)
  })
})
