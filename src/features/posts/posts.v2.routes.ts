// Version 2's questions about posts: what the caller may do with one, their own posts in any
// state, and an organization's posts for its members. Each answer is the post policy's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { orgOf, OrgParams, orgRoute } from '../orgs/index.js'
import { postCallerOf, signedInPostCallerOf } from './post-caller.http.js'
import { postReadsFor } from './post-expansions.http.js'
import { postPageV2 } from './post-page.http.js'
import { ExpandQuery, PostBySlugParams, PostIdParams, PostListQueryV2, PostListRefusedResponse, PostPermissions, postShapesV2 } from './posts.schemas.js'

const tags = ['posts']

const postsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services
  const { read: PostReadV2, page: PostPageV2 } = postShapesV2(app.services.contentFields)

  app.get(
    '/tags',
    {
      schema: {
        tags,
        summary: 'The most used tags, counted over the posts the caller may list',
        description: 'Each tag with how many of the posts the caller may list have it (a private post counts for its author only), most used first, ties by name.',
        security: optionalBearerOrApiKey,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
        response: { 200: Type.Object({ data: Type.Array(Type.Object({ tag: Type.String(), count: Type.Integer() }, { title: 'TagCount' })) }, { title: 'PopularTags' }), ...errorResponses(422) },
      },
    },
    async (request) => ({ data: await posts.popularTags(postCallerOf(request), request.query.limit) }),
  )

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
    '/posts/by-slug/:owner/:slug',
    {
      schema: {
        tags,
        summary: "A post by its address: its organization's slug or its author's username, and its slug",
        description: 'As GET /posts/{post_id} reads it. An old slug of the owner answers 308 to the post it now stands for (/api/v2/posts/{post_id}), when the caller may read that post.',
        security: optionalBearerOrApiKey,
        params: PostBySlugParams,
        querystring: ExpandQuery,
        response: { 200: PostReadV2, 308: Type.Null({ description: 'To the post an old slug stands for' }), ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const caller = postCallerOf(request)
      const found = await posts.getBySlug(caller, request.params.owner, request.params.slug, clientOf(request))
      if ('movedTo' in found) return reply.redirect(`/api/v2/posts/${found.movedTo}`, 308)
      const [post] = await posts.withDetails([found.post], caller)
      return (await postReadsFor(request, caller, [post!], request.query.expand))(post!)
    },
  )

  app.get(
    '/users/me/posts',
    protectedRoute(app, { tags, summary: "The caller's own posts in any visibility and status, newest first", querystring: PostListQueryV2, response: { 200: PostPageV2, ...errorResponses(400, 422), 422: PostListRefusedResponse } }),
    async (request) => {
      const caller = signedInPostCallerOf(request)
      return postPageV2(request, caller, request.query, { authorId: caller.id })
    },
  )

  app.get(
    '/orgs/:org/posts',
    orgRoute(
      app,
      { tags, summary: "An organization's posts its members may see, newest first", params: OrgParams, querystring: PostListQueryV2, response: { 200: PostPageV2, ...errorResponses(400, 422), 422: PostListRefusedResponse } },
      { role: 'member', apiKeys: true },
    ),
    async (request) => postPageV2(request, postCallerOf(request), request.query, { orgId: orgOf(request).id }),
  )
}

export default postsV2Routes
