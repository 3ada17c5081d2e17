// Post endpoints of every version. Versions differ only in how the list answers: a plain array
// (v1) or the paginated envelope (v2).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from 'typebox'
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, cursorPageRequest, CursorParameter, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import type { Post } from './post.js'
import { PostCreate, PostIdParams, PostListQuery, PostRead, PostUpdate } from './posts.schemas.js'

export interface PostsRouteOptions {
  list: 'array' | 'envelope'
  toPostRead: (post: Post) => Static<typeof PostRead>
}

const tags = ['posts']

const PostPage = CursorPageEnvelopeSchema(PostRead, 'PostPage')
const PostListQueryV2 = Type.Object({ ...PostListQuery.properties, cursor: Type.Optional(CursorParameter) })

const fromPostBody = ({ media_url: mediaUrl, ...rest }: { title?: string; text?: string; media_url?: string | null }) =>
  mediaUrl === undefined ? rest : { ...rest, mediaUrl }

const postsRoutes: FastifyPluginAsyncTypebox<PostsRouteOptions> = async (app, { list, toPostRead }) => {
  const { posts } = app.services
  const envelope = list === 'envelope'

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List posts, newest first',
        querystring: envelope ? PostListQueryV2 : PostListQuery,
        response: { 200: envelope ? PostPage : Type.Array(PostRead), ...errorResponses(422) },
      },
    },
    async (request) => {
      const { page, limit, search, author_id: authorId } = request.query
      const filter = { search: filled(search), authorId }
      if (!envelope) return (await posts.list(filter, { page, limit, countTotal: false })).items.map(toPostRead)
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await posts.list(filter, pageRequest), pageRequest, toPostRead)
    },
  )

  app.get(
    '/:post_id',
    { schema: { tags, summary: 'Get a post', params: PostIdParams, response: { 200: PostRead, ...errorResponses(404, 422) } } },
    async (request) => toPostRead(await posts.get(request.params.post_id)),
  )

  app.post(
    '/',
    protectedRoute(app, {
      tags,
      summary: 'Write a post as the caller',
      body: PostCreate,
      response: { 201: PostRead, ...errorResponses(422) },
    }, { wayIn: 'none' }),
    async (request, reply) => {
      const { title, text, media_url: mediaUrl } = request.body
      return reply.code(201).send(toPostRead(await posts.create(callerOf(request).user, { title, text, mediaUrl })))
    },
  )

  app.patch(
    '/:post_id',
    protectedRoute(app, {
      tags,
      summary: 'Edit a post (its author or a superuser)',
      params: PostIdParams,
      body: PostUpdate,
      response: { 200: PostRead, ...errorResponses(403, 404, 422) },
    }, { wayIn: 'none' }),
    async (request) => {
      const { post_id: postId } = request.params
      const changes = fromPostBody(request.body)
      return toPostRead(await posts.update(callerOf(request).user, postId, changes))
    },
  )

  app.delete(
    '/:post_id',
    protectedRoute(app, {
      tags,
      summary: 'Soft-delete a post (its author or a superuser)',
      params: PostIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { wayIn: 'none' }),
    async (request) => {
      await posts.softDelete(callerOf(request).user, request.params.post_id)
      return { message: 'Post deleted' }
    },
  )

  app.delete(
    '/:post_id/permanent',
    protectedRoute(app, {
      tags,
      summary: 'Remove a post from the database (superuser)',
      params: PostIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await posts.deletePermanently(callerOf(request).user, request.params.post_id)
      return { message: 'Post deleted from the database' }
    },
  )
}

export default postsRoutes
