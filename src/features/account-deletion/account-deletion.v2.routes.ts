// Deleting one's own account with a grace period, and taking it back.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'

const tags = ['account']

const DeletionScheduled = Type.Object(
  {
    status: Type.Literal('pending_deletion'),
    deletion_due_at: Type.String({ format: 'date-time', description: 'When the account and its data are removed for good, unless the deletion is taken back' }),
  },
  { title: 'DeletionScheduled' },
)

const CancelDeletion = Type.Union(
  [
    Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: "The mailed link's token" }) }, { additionalProperties: false }),
    Type.Object(
      { login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email' }), password: Type.String({ minLength: 1, maxLength: 128 }) },
      { additionalProperties: false },
    ),
  ],
  { title: 'CancelDeletion' },
)

const accountDeletionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { accountDeletion } = app.services

  app.delete(
    '/users/me',
    protectedRoute(app, {
      tags,
      summary: 'Delete my account: hidden at once, every session ended, removed for good after ACCOUNT_DELETION_GRACE_DAYS unless taken back (409 last_owner while an organization has no other owner)',
      response: { 202: DeletionScheduled, ...errorResponses(403, 409) },
    }, { apiKeys: false, wayIn: 'none', reauthenticate: true }),
    async (request, reply) => {
      const { deletionDueAt } = await accountDeletion.request(tokenCallerOf(request), clientOf(request))
      return reply.code(202).send({ status: 'pending_deletion' as const, deletion_due_at: deletionDueAt })
    },
  )

  app.post(
    '/users/me/deletion/cancel',
    {
      // Anyone may send it (the account has no session left): a login door, counted and guarded as sign-ins are.
      config: { door: 'login', accountField: 'login' },
      schema: {
        tags,
        summary: 'Take back a pending deletion, with the mailed token or the login and password; the account comes back, and its owner signs in again',
        body: CancelDeletion,
        response: { 200: MessageResponse, ...errorResponses(400, 401, 409, 422, 429) },
      },
    },
    async (request) => {
      await accountDeletion.cancel(request.body, clientOf(request))
      return { message: 'Deletion cancelled: sign in again' }
    },
  )
}

export default accountDeletionRoutes
