// The endpoints on one user that every version has: read (me, by id), update, soft and permanent
// deletion, avatar upload. Versions pass their shapes; the rules are the users service's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static, TSchema } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { actorOf, callerOf } from '../../plugins/authentication.js'
import type { AvatarRouteOptions } from './avatar-upload.routes.js'
import avatarUploadRoutes from './avatar-upload.routes.js'
import type { User, UserChanges } from './user.js'
import type { UserSight } from './user-view.http.js'
import { userReader } from './user-view.http.js'

export interface UserItemShapes<Read extends TSchema, Update extends TSchema> {
  read: Read
  update: Update
  toUserRead: (user: User, sight: UserSight) => Static<Read>
  fromUserUpdate: (body: Static<Update>) => UserChanges
  avatar: AvatarRouteOptions
}

const tags = ['users']
const deletion = { 200: MessageResponse, ...errorResponses(403, 404, 422) }
/** 409 `last_owner`: the user is the only owner of an organization. */
const permanentDeletion = { ...deletion, ...errorResponses(409) }

/** GET /me: registered apart, first, so it leads the version's document as it always has. */
export function userMeRoute<Read extends TSchema>(shapes: Pick<UserItemShapes<Read, TSchema>, 'read' | 'toUserRead'>) {
  const read: TSchema = shapes.read
  const { toUserRead } = shapes
  const plugin: FastifyPluginAsyncTypebox = async (app) => {
    app.get(
      '/me',
      protectedRoute(app, { tags, summary: 'The logged-in caller', response: { 200: read } }),
      async (request) => userReader(request, toUserRead, 'writer')(callerOf(request).user),
    )
  }
  return plugin
}

export function userItemRoutes<Read extends TSchema, Update extends TSchema>(
  shapes: UserItemShapes<Read, Update>,
): FastifyPluginAsyncTypebox {
  const { toUserRead, fromUserUpdate } = shapes
  // Generic shapes widened to plain schemas: their types are checked where each version builds them.
  const read: TSchema = shapes.read
  const update: TSchema = shapes.update
  return async (app) => {
    const { users, account } = app.services

    app.get(
      '/:user_id',
      { schema: { tags, summary: 'Get a user', params: UserIdParams, response: { 200: read, ...errorResponses(404, 422) } } },
      async (request) => userReader(request, toUserRead)(await users.profile(request.params.user_id)),
    )

    app.patch(
      '/:user_id',
      protectedRoute(app, {
        tags,
        summary: 'Update a user (that user or a superuser)',
        params: UserIdParams,
        body: update,
        response: { 200: read, ...errorResponses(403, 404, 409, 422) },
      }, { wayIn: 'none', impersonation: 'allowed' }),
      async (request) => userReader(request, toUserRead, 'writer')(await users.update(actorOf(request), request.params.user_id, fromUserUpdate(request.body as Static<Update>), clientOf(request))),
    )

    app.delete(
      '/:user_id',
      protectedRoute(app, { tags, summary: 'Soft-delete a user (that user or a superuser)', params: UserIdParams, response: deletion }, { wayIn: 'none', impersonation: 'refused' }),
      async (request) => {
        await users.softDelete(callerOf(request).user, request.params.user_id)
        return { message: 'User deleted' }
      },
    )

    app.post(
      '/:user_id/restore',
      protectedRoute(app, {
        tags,
        summary: 'Undo the soft delete of a user, with the posts hidden with them (superuser)',
        params: UserIdParams,
        response: { 200: read, ...errorResponses(403, 404, 409, 422) },
      }, { ...superusersOnly, wayIn: 'none' }),
      async (request) => userReader(request, toUserRead, 'writer')(await account.restoreUser(callerOf(request).user, request.params.user_id, clientOf(request))),
    )

    app.delete(
      '/:user_id/permanent',
      protectedRoute(app, { tags, summary: 'Remove a user from the database (superuser)', params: UserIdParams, response: permanentDeletion }, { ...superusersOnly, wayIn: 'none' }),
      async (request) => {
        await users.deletePermanently(callerOf(request).user, request.params.user_id, clientOf(request))
        return { message: 'User deleted from the database' }
      },
    )

    await app.register(avatarUploadRoutes, shapes.avatar)
  }
}
