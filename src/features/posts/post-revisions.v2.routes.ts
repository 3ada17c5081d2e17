// Version 2's revisions of a post (docs/api.md "Revisions"): the versions its changes replaced,
// one of them, and making the post that version again. For those who may edit the post.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { signedInPostCallerOf } from './post-caller.http.js'
import { toRevisionRead } from './post-revision.js'
import { toPostReadV2 } from './posts.mappers.js'
import { postShapesV2 } from './posts.schemas.js'

const tags = ['posts']

const RevisionRead = Type.Object(
  {
    id: Type.Integer(),
    post_id: Type.Integer(),
    title: Type.String(),
    text: Type.String(),
    format: Type.String(),
    visibility: Type.String(),
    tags: Type.Array(Type.String()),
    language: Type.Union([Type.String(), Type.Null()]),
    attachments: Type.Array(Type.Integer(), { description: 'The ids of its files, in order' }),
    replaced_by: Type.Union([Type.Integer(), Type.Null()], { description: 'Who made the change that replaced this version; null once their account is gone' }),
    created_at: Type.String({ format: 'date-time', description: 'When it was replaced' }),
  },
  { title: 'PostRevision' },
)


const RevisionParams = Type.Object({ revision_id: RecordId })

const postRevisionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services
  const { read: PostReadV2 } = postShapesV2(app.services.contentFields)

  app.get(
    '/posts/:post_id/revisions',
    protectedRoute(app, {
      tags,
      summary: "The versions a post's changes replaced, newest first (those who may edit it)",
      params: Type.Object({ post_id: RecordId }),
      querystring: Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: { 200: PageEnvelopeSchema(RevisionRead, 'PostRevisionPage'), ...errorResponses(403, 404, 422) },
    }),
    async (request) => {
      const found = await posts.revisionsOf(signedInPostCallerOf(request), request.params.post_id, request.query, clientOf(request))
      return toPageEnvelope(found, request.query, toRevisionRead)
    },
  )

  app.get(
    '/revisions/:revision_id',
    protectedRoute(app, { tags, summary: 'One earlier version of a post (those who may edit it)', params: RevisionParams, response: { 200: RevisionRead, ...errorResponses(403, 404, 422) } }),
    async (request) => toRevisionRead(await posts.revision(signedInPostCallerOf(request), request.params.revision_id, clientOf(request))),
  )

  app.post(
    '/revisions/:revision_id/restore',
    protectedRoute(
      app,
      {
        tags,
        summary: 'Make a post that earlier version again (an edit: the version it replaces is kept in turn)',
        params: RevisionParams,
        response: { 200: PostReadV2, ...errorResponses(403, 404, 409, 422) },
      },
      { wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request) => {
      const caller = signedInPostCallerOf(request)
      const post = await posts.restoreRevision(caller, request.params.revision_id, clientOf(request))
      return toPostReadV2((await posts.withDetails([post], caller))[0]!)
    },
  )
}

export default postRevisionsRoutes
