// Version 2 posts: the list is the paginated envelope; the rest is shared with v1.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PostListQuery, PostRead } from '../../modules/posts/posts.schemas.js'
import { PageSchema } from '../../shared/pagination.js'
import postItemRoutes, { postTags as tags } from '../common/post-items.routes.js'
import { errorResponses } from '../common/responses.js'

const PostPage = PageSchema(PostRead, 'PostPage')

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
