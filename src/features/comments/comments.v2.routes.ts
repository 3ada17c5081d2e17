// Version 2's comments: a post's threads and a comment's replies, for whoever may read the post;
// writing, editing, deleting and moderating them. Each answer is the comments service's, which
// asks the post policy.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { postCallerOf, PostIdParams, signedInPostCallerOf } from '../posts/index.js'
import { toCommentRead, toThreadRead } from './comments.mappers.js'
import { CommentCreate, CommentHide, CommentIdParams, CommentRead, CommentUpdate, ReplyListQuery, ReplyPage, ThreadListQuery, ThreadPage } from './comments.schemas.js'

const tags = ['comments']
const writes = { wayIn: 'none', impersonation: 'allowed' } as const

const commentsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { comments } = app.services

  app.get(
    '/posts/:post_id/comments',
    {
      schema: {
        tags,
        summary: "A post's comments: its threads, each with its first replies (whoever may read the post)",
        security: optionalBearerOrApiKey,
        params: PostIdParams,
        querystring: ThreadListQuery,
        response: { 200: ThreadPage, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      const page = await comments.listThreads(postCallerOf(request), request.params.post_id, request.query.order, pageRequest, clientOf(request))
      return toCursorPageEnvelope(page, pageRequest, toThreadRead)
    },
  )

  app.post(
    '/posts/:post_id/comments',
    protectedRoute(app, { tags, summary: 'Comment on a post, or reply to one of its comments', params: PostIdParams, body: CommentCreate, response: { 201: CommentRead, ...errorResponses(403, 404, 422) } }, writes),
    async (request, reply) => {
      const { text, parent_id: parentId } = request.body
      const created = await comments.create(signedInPostCallerOf(request), request.params.post_id, { text, ...(parentId == null ? {} : { parentId }) }, clientOf(request))
      return reply.code(201).send(toCommentRead(created))
    },
  )

  app.get(
    '/comments/:comment_id',
    { schema: { tags, summary: 'A comment (whoever may read its post)', security: optionalBearerOrApiKey, params: CommentIdParams, response: { 200: CommentRead, ...errorResponses(404, 422) } } },
    async (request) => toCommentRead(await comments.get(postCallerOf(request), request.params.comment_id, clientOf(request))),
  )

  app.get(
    '/comments/:comment_id/replies',
    {
      schema: {
        tags,
        summary: "A comment's replies, oldest first",
        security: optionalBearerOrApiKey,
        params: CommentIdParams,
        querystring: ReplyListQuery,
        response: { 200: ReplyPage, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await comments.listReplies(postCallerOf(request), request.params.comment_id, pageRequest, clientOf(request)), pageRequest, toCommentRead)
    },
  )

  app.patch(
    '/comments/:comment_id',
    protectedRoute(app, { tags, summary: 'Edit a comment (its author)', params: CommentIdParams, body: CommentUpdate, response: { 200: CommentRead, ...errorResponses(403, 404, 422) } }, writes),
    async (request) => toCommentRead(await comments.edit(signedInPostCallerOf(request), request.params.comment_id, request.body.text, clientOf(request))),
  )

  app.delete(
    '/comments/:comment_id',
    protectedRoute(app, { tags, summary: 'Delete a comment (its author; a superuser removes anyone’s): its words go, its place in the thread stays', params: CommentIdParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, writes),
    async (request) => {
      await comments.delete(signedInPostCallerOf(request), request.params.comment_id, clientOf(request))
      return { message: 'Comment deleted' }
    },
  )

  app.post(
    '/comments/:comment_id/hide',
    protectedRoute(app, { tags, summary: "Hide a comment, with the reason its author is shown (the post's author, its organization's admins, superusers)", params: CommentIdParams, body: CommentHide, response: { 200: CommentRead, ...errorResponses(403, 404, 422) } }, writes),
    async (request) => toCommentRead(await comments.hide(signedInPostCallerOf(request), request.params.comment_id, request.body.reason, clientOf(request))),
  )

  app.post(
    '/comments/:comment_id/unhide',
    protectedRoute(app, { tags, summary: 'Show a hidden comment again (as for hiding it)', params: CommentIdParams, response: { 200: CommentRead, ...errorResponses(403, 404, 422) } }, writes),
    async (request) => toCommentRead(await comments.unhide(signedInPostCallerOf(request), request.params.comment_id, clientOf(request))),
  )
}

export default commentsV2Routes
