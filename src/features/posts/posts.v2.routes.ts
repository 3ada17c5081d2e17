// Version 2's questions about posts: what the caller may do with one, their own posts in any
// state, and an organization's posts for its members. Each answer is the post policy's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { filled } from '../../shared/filters.js'
import { orgOf, OrgParams, orgRoute } from '../orgs/index.js'
import { postCallerOf, signedInPostCallerOf } from './post-caller.http.js'
import { toPostReadV2 } from './posts.mappers.js'
import { PostIdParams, PostListQueryV2, PostPageV2, PostPermissions } from './posts.schemas.js'

const tags = ['posts']

const postsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services

  app.get(
    '/posts/:post_id/permissions',
    {
      schema: {
        tags,
        summary: 'What the caller may do with a post: read, edit, delete, publish',
        security: optionalBearerOrApiKey,
        params: PostIdParams,
        response: { 200: PostPermissions, ...errorResponses(404, 422) },
      },
    },
    async (request) => posts.permissions(postCallerOf(request), request.params.post_id, clientOf(request)),
  )

  app.get(
    '/users/me/posts',
    protectedRoute(app, { tags, summary: "The caller's own posts in any visibility and status, newest first", querystring: PostListQueryV2, response: { 200: PostPageV2, ...errorResponses(422) } }),
    async (request) => {
      const caller = signedInPostCallerOf(request)
      const { search, visibility, status } = request.query
      const pageRequest = cursorPageRequest(request.query)
      const page = await posts.list(caller, { authorId: caller.id, search: filled(search), visibility, status }, pageRequest, clientOf(request))
      return toCursorPageEnvelope(page, pageRequest, toPostReadV2)
    },
  )

  app.get(
    '/orgs/:org/posts',
    orgRoute(
      app,
      { tags, summary: "An organization's posts its members may see, newest first", params: OrgParams, querystring: PostListQueryV2, response: { 200: PostPageV2, ...errorResponses(422) } },
      { role: 'member', apiKeys: true },
    ),
    async (request) => {
      const { search, visibility, status } = request.query
      const pageRequest = cursorPageRequest(request.query)
      const filter = { orgId: orgOf(request).id, search: filled(search), visibility, status }
      return toCursorPageEnvelope(await posts.list(postCallerOf(request), filter, pageRequest, clientOf(request)), pageRequest, toPostReadV2)
    },
  )
}

export default postsV2Routes
