// Version 1 posts: the list is a plain array (SPEC.md section 4); the rest is shared.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { PostListQuery, PostRead } from '../../modules/posts/posts.schemas.js'
import postItemRoutes, { postTags as tags } from '../common/post-items.routes.js'
import { errorResponses } from '../common/responses.js'

const postsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List posts, newest first',
        querystring: PostListQuery,
        response: { 200: Type.Array(PostRead), ...errorResponses(422) },
      },
    },
    async (request) => {
      const { page, limit, search, author_id: authorId } = request.query
      return app.services.posts.list({ page, limit, search, authorId })
    },
  )

  await app.register(postItemRoutes)
}

export default postsRoutes
