// User endpoints whose shapes are the same in every version: soft and permanent deletion.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { UserIdParams } from '../../modules/users/users.schemas.js'
import { callerOf } from '../../plugins/authentication.js'
import { bearer } from './openapi.js'
import { MessageResponse, errorResponses } from './responses.js'

const tags = ['users']

const userDeletionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services

  app.delete(
    '/:user_id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Soft-delete a user (that user or a superuser)',
        security: bearer,
        params: UserIdParams,
        response: { 200: MessageResponse, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      await users.softDelete(callerOf(request).user, request.params.user_id)
      return { message: 'User deleted' }
    },
  )

  app.delete(
    '/:user_id/permanent',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Remove a user from the database (superuser)',
        security: bearer,
        params: UserIdParams,
        response: { 200: MessageResponse, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      await users.deletePermanently(callerOf(request).user, request.params.user_id)
      return { message: 'User deleted from the database' }
    },
  )
}

export default userDeletionRoutes
