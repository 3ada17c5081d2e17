// Version 2's trash (docs/api.md "Trash"): the posts the caller wrote that were deleted, until
// POST_TRASH_DAYS have passed, and bringing one back.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { PageNumber } from '../../shared/page-number.js'
import { signedInPostCallerOf } from './post-caller.http.js'
import { toPostReadV2 } from './posts.mappers.js'
import { PostIdParams, postShapesV2 } from './posts.schemas.js'

const tags = ['posts']

const postTrashRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services
  const { read: PostReadV2 } = postShapesV2(app.services.contentFields)
  const TrashedPostRead = Type.Object(
    {
      ...PostReadV2.properties,
      deleted_at: Type.String({ format: 'date-time' }),
      purge_at: Type.String({ format: 'date-time', description: 'When it is removed for good unless restored first (POST_TRASH_DAYS after its deletion)' }),
      trashed_by: Type.Union([Type.Integer(), Type.Null()], { description: 'Who deleted it: its author, an admin of its organization, or a superuser (null once their account is gone). Only its author may restore what they deleted themselves' }),
    },
    { title: 'TrashedPost' },
  )

  app.get(
    '/users/me/trash',
    protectedRoute(app, {
      tags,
      summary: "The caller's deleted posts, most recently deleted first, until they are removed for good",
      querystring: Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: { 200: PageEnvelopeSchema(TrashedPostRead, 'TrashedPostPage'), ...errorResponses(422) },
    }),
    async (request) => {
      const found = await posts.trashOf(signedInPostCallerOf(request), request.query)
      return toPageEnvelope(found, request.query, ({ post, deletedAt, purgeAt, trashedBy }) => ({ ...toPostReadV2(post), deleted_at: deletedAt, purge_at: purgeAt, trashed_by: trashedBy }))
    },
  )

  app.post(
    '/posts/:post_id/restore',
    protectedRoute(
      app,
      {
        tags,
        summary: 'Bring a post back from the trash as it was (its author, when they deleted it; or a superuser)',
        params: PostIdParams,
        response: { 200: PostReadV2, ...errorResponses(403, 404, 422) },
      },
      { wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request) => {
      const caller = signedInPostCallerOf(request)
      const post = await posts.restoreFromTrash(caller, request.params.post_id, clientOf(request))
      return toPostReadV2((await posts.withDetails([post], caller))[0]!)
    },
  )
}

export default postTrashRoutes
