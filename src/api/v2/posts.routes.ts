// Version 2 posts: the list is the paginated envelope; the rest is shared with v1.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { PostListQuery, PostRead } from '../../modules/posts/posts.schemas.js'
import postItemRoutes, { postTags as tags } from '../common/post-items.routes.js'
import { errorResponses } from '../common/responses.js'

const PostPage = Type.Object(
  {
    data: Type.Array(PostRead),
    total_count: Type.Integer(),
    has_more: Type.Boolean(),
    page: Type.Integer(),
    items_per_page: Type.Integer(),
  },
  { title: 'PostPage' },
)

const postsRoutesV2: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List posts, newest first',
        querystring: PostListQuery,
        response: { 200: PostPage, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { page, limit, search, author_id: authorId } = request.query
      return app.services.posts.page({ page, limit, search, authorId })
    },
  )

  await app.register(postItemRoutes)
}

export default postsRoutesV2
