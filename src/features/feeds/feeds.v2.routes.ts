// Feeds of public, published posts (docs/api.md "Feeds"): the whole service's, an author's, an
// organization's and a tag's, each as RSS 2.0, Atom and JSON Feed. What a feed holds is an
// anonymous reader's newest-first list, narrowed: the post policy decides, as everywhere. Each
// answer carries an ETag and a Last-Modified, and a reader that has it gets 304.
import { createHash } from 'node:crypto'

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses } from '../../api/common/responses.js'
import { DomainError, NOT_FOUND } from '../../shared/errors.js'
import type { FeedFormat, FeedItem } from './feed-document.js'
import { FEED_CONTENT_TYPES, FEED_FORMATS, plainTextHtml, renderFeed } from './feed-document.js'

/** How many posts a feed holds, newest first. */
export const FEED_ITEMS = 20

const Format = Type.Union(
  FEED_FORMATS.map((format) => Type.Literal(format)),
  { description: 'rss (RSS 2.0), atom (Atom 1.0) or json (JSON Feed)' },
)
const Name = Type.String({ minLength: 1, maxLength: 64 })
const Feed200 = { 200: Type.String({ description: 'The feed document' }), 304: Type.Null({ description: 'The feed is as the reader has it (If-None-Match, If-Modified-Since)' }) }

type Narrowing = { authorId?: number; orgId?: number; tag?: string }

const feedsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services
  const { postUrl, publicUrl } = { postUrl: app.config.feeds.postUrl, publicUrl: app.config.mail.publicUrl }
  const linkOf = (post: { id: number; slug: string }) => (postUrl ?? `${publicUrl}/api/v2/posts/{id}`).replaceAll('{id}', String(post.id)).replaceAll('{slug}', encodeURIComponent(post.slug))

  async function answer(request: FastifyRequest, reply: FastifyReply, format: FeedFormat, path: string, title: string, narrowing: Narrowing) {
    const page = await posts.list(null, narrowing, { page: 1, limit: FEED_ITEMS, countTotal: false }, clientOf(request))
    const related = await posts.relationsOf(page.items, null, new Set(['author']))
    const items: FeedItem[] = page.items.map((post) => ({
      id: linkOf(post),
      link: linkOf(post),
      title: post.title,
      html: post.html ?? plainTextHtml(post.text),
      published: new Date(post.publishedAt ?? post.createdAt),
      updated: new Date(post.updatedAt),
      author: related.authors.get(post.authorId)?.name,
      tags: post.tags,
    }))
    const updated = new Date(Math.max(0, ...items.map((item) => item.updated.getTime())))
    const self = Object.fromEntries(FEED_FORMATS.map((each) => [each, `${publicUrl}/api/v2/feeds/${path}.${each}`])) as Record<FeedFormat, string>
    const body = renderFeed(format, { title, description: `${title}: the newest public posts`, self, home: publicUrl, updated, generator: 'user-post-service' }, items)
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
    // HTTP dates have whole seconds.
    const lastModified = new Date(Math.floor(updated.getTime() / 1000) * 1000)
    reply.header('etag', etag).header('cache-control', 'public, max-age=60').header('vary', 'accept-encoding')
    if (items.length > 0) reply.header('last-modified', lastModified.toUTCString())
    const matches = request.headers['if-none-match']
    const since = request.headers['if-modified-since']
    const unchanged = matches !== undefined ? matches.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*') : since !== undefined && items.length > 0 && Date.parse(since) >= lastModified.getTime()
    if (unchanged) return reply.code(304).send()
    return reply.type(FEED_CONTENT_TYPES[format]).send(body)
  }

  const schema = <Params extends TSchema>(summary: string, params: Params) => ({
    tags: ['feeds'],
    summary,
    params,
    response: { ...Feed200, ...errorResponses(404, 422) },
    produces: Object.values(FEED_CONTENT_TYPES),
  })
  const feedNotFound = () => new DomainError('not_found', NOT_FOUND, { code: 'feed_not_found' })

  app.get('/feeds/posts.:format', { schema: schema("The service's newest public posts", Type.Object({ format: Format })) }, async (request, reply) =>
    answer(request, reply, request.params.format, 'posts', 'Newest posts', {}),
  )

  app.get('/feeds/users/:username/posts.:format', { schema: schema("An author's newest public posts", Type.Object({ username: Name, format: Format })) }, async (request, reply) => {
    const owner = await posts.ownerNamed(request.params.username)
    if (owner.authorId === undefined) throw feedNotFound()
    return answer(request, reply, request.params.format, `users/${encodeURIComponent(request.params.username)}/posts`, `Posts by ${request.params.username}`, { authorId: owner.authorId })
  })

  app.get('/feeds/orgs/:org/posts.:format', { schema: schema("An organization's newest public posts", Type.Object({ org: Name, format: Format })) }, async (request, reply) => {
    const owner = await posts.ownerNamed(request.params.org)
    if (owner.orgId === undefined) throw feedNotFound()
    return answer(request, reply, request.params.format, `orgs/${encodeURIComponent(request.params.org)}/posts`, `Posts of ${request.params.org}`, { orgId: owner.orgId })
  })

  app.get('/feeds/tags/:tag/posts.:format', { schema: schema('The newest public posts with a tag', Type.Object({ tag: Name, format: Format })) }, async (request, reply) =>
    answer(request, reply, request.params.format, `tags/${encodeURIComponent(request.params.tag)}/posts`, `Posts tagged ${request.params.tag}`, { tag: request.params.tag }),
  )
}

export default feedsRoutes
