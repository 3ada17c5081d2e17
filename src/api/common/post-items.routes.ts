// Post endpoints whose shapes are the same in every version: get, create, edit, delete.
// Each version adds its own listing (an array in v1, the paginated envelope in v2).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PostCreate, PostIdParams, PostRead, PostUpdate } from '../../modules/posts/posts.schemas.js'
import { callerOf } from '../../plugins/authentication.js'
import { bearer } from './openapi.js'
import { MessageResponse, errorResponses } from './responses.js'

export const postTags = ['posts']
const tags = postTags

const postItemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { posts } = app.services

  app.get(
    '/:post_id',
    { schema: { tags, summary: 'Get a post', params: PostIdParams, response: { 200: PostRead, ...errorResponses(404, 422) } } },
    async (request) => posts.get(request.params.post_id),
  )

  app.post(
    '/',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Write a post as the caller',
        security: bearer,
        body: PostCreate,
        response: { 201: PostRead, ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await posts.create(callerOf(request).user, request.body)),
  )

  app.patch(
    '/:post_id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Edit a post (its author or a superuser)',
        security: bearer,
        params: PostIdParams,
        body: PostUpdate,
        response: { 200: PostRead, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => posts.update(callerOf(request).user, request.params.post_id, request.body),
  )

  app.delete(
    '/:post_id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Soft-delete a post (its author or a superuser)',
        security: bearer,
        params: PostIdParams,
        response: { 200: MessageResponse, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      await posts.softDelete(callerOf(request).user, request.params.post_id)
      return { message: 'Post deleted' }
    },
  )

  app.delete(
    '/:post_id/permanent',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Remove a post from the database (superuser)',
        security: bearer,
        params: PostIdParams,
        response: { 200: MessageResponse, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      await posts.deletePermanently(callerOf(request).user, request.params.post_id)
      return { message: 'Post deleted from the database' }
    },
  )
}

export default postItemRoutes
