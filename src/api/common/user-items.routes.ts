// The endpoints on one user that every version has: read (me, by id), update, soft and permanent
// deletion, avatar upload. Versions pass their shapes; the rules are the users service's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static, TSchema } from 'typebox'
import type { User, UserChanges } from '../../modules/users/user.js'
import { UserIdParams } from '../../modules/users/users.schemas.js'
import type { FastifyRequest } from 'fastify'
import { API_KEYS_REFUSED, callerOf } from '../../plugins/authentication.js'
import { DomainError } from '../../shared/errors.js'
import avatarUploadRoutes from './avatar-upload.routes.js'
import type { AvatarRouteOptions } from './avatar-upload.routes.js'
import { clientOf } from './client-info.js'
import { protectedRoute } from './protected-route.js'
import { readerHooks, userReader } from './user-view.js'
import { MessageResponse, errorResponses } from './responses.js'

export interface UserItemShapes<Read extends TSchema, Update extends TSchema> {
  read: Read
  update: Update
  toUserRead: (user: User, showEmail: boolean) => Static<Read>
  fromUserUpdate: (body: Static<Update>) => UserChanges
  avatar: AvatarRouteOptions
}

const tags = ['users']
const deletion = { 200: MessageResponse, ...errorResponses(403, 404, 422) }

/** GET /me: registered apart, first, so it leads the version's document as it always has. */
export function userMeRoute<Read extends TSchema>(shapes: Pick<UserItemShapes<Read, TSchema>, 'read' | 'toUserRead'>) {
  const read: TSchema = shapes.read
  const { toUserRead } = shapes
  const plugin: FastifyPluginAsyncTypebox = async (app) => {
    app.get(
      '/me',
      protectedRoute(app, { tags, summary: 'The logged-in caller', response: { 200: read } }),
      async (request) => toUserRead(callerOf(request).user, true),
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
  const updateOf = (request: FastifyRequest) => {
    const changes = fromUserUpdate(request.body as Static<Update>)
    // An API key never manages email (nor keys, sessions or passwords).
    if (changes.email !== undefined && request.caller?.apiKey) throw new DomainError('forbidden', API_KEYS_REFUSED)
    return changes
  }
  return async (app) => {
    const { users, auth } = app.services

    app.get(
      '/:user_id',
      { ...readerHooks(app), schema: { tags, summary: 'Get a user', params: UserIdParams, response: { 200: read, ...errorResponses(404, 422) } } },
      async (request) => userReader(request, toUserRead)(await users.get(request.params.user_id)),
    )

    app.patch(
      '/:user_id',
      protectedRoute(app, {
        tags,
        summary: 'Update a user (that user or a superuser)',
        params: UserIdParams,
        body: update,
        response: { 200: read, ...errorResponses(403, 404, 409, 422) },
      }),
      async (request) => toUserRead(await users.update(callerOf(request).user, request.params.user_id, updateOf(request)), true),
    )

    app.delete(
      '/:user_id',
      protectedRoute(app, { tags, summary: 'Soft-delete a user (that user or a superuser)', params: UserIdParams, response: deletion }),
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
      }),
      async (request) => {
        const actor = callerOf(request).user
        await users.assertRestorable(actor, request.params.user_id)
        // Tokens issued before the deletion must not come back to life with the account: its
        // sessions end first (while it is still deleted, so nothing can use them meanwhile).
        await auth.revokeSessionsOf(request.params.user_id, clientOf(request))
        return toUserRead(await users.restore(actor, request.params.user_id), true)
      },
    )

    app.delete(
      '/:user_id/permanent',
      protectedRoute(app, { tags, summary: 'Remove a user from the database (superuser)', params: UserIdParams, response: deletion }),
      async (request) => {
        await users.deletePermanently(callerOf(request).user, request.params.user_id, clientOf(request))
        return { message: 'User deleted from the database' }
      },
    )

    await app.register(avatarUploadRoutes, shapes.avatar)
  }
}
