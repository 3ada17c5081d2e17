// Version 1 user endpoints (docs/api.md, Version 1: endpoints and who may call them).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import { RecordId } from '../../shared/record-id.js'
import { signUpRoute } from '../sign-up/index.js'
import { userItemRoutes, userMeRoute } from './user-items.routes.js'
import { userReader } from './user-view.http.js'
import { fromUserUpdateV1, toUserReadV1 } from './users.v1.mappers.js'
import { AvatarResponse, UserCreate, UserListQuery, UserRead, UserSearchQuery, UserUpdate } from './users.v1.schemas.js'

const tags = ['users']

const UserPage = PageEnvelopeSchema(UserRead, 'UserPage')

/** v1's search answers a plain array of at most this many users. */
const SEARCH_RESULT_LIMIT = 100

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services

  // Static paths first for readability; the router matches them before /:user_id anyway.
  await app.register(userMeRoute({ read: UserRead, toUserRead: toUserReadV1 }))

  app.get(
    '/search',
    {
      schema: {
        tags,
        summary: 'Search users by name and age',
        description: 'At most 100 users, ordered by id.',
        querystring: UserSearchQuery,
        response: { 200: Type.Array(UserRead), ...errorResponses(422) },
      },
    },
    async (request) => {
      const { name, age, is_active: isActive } = request.query
      const found = await users.search(
        { name: filled(name), age: filled(age), isActive },
        { page: 1, limit: SEARCH_RESULT_LIMIT, countTotal: false },
      )
      return found.items.map(userReader(request, toUserReadV1))
    },
  )

  app.get(
    '/',
    { schema: { tags, summary: 'List users', querystring: UserListQuery, response: { 200: UserPage, ...errorResponses(422) } } },
    async (request) => {
      const { page, items_per_page: limit } = request.query
      return toPageEnvelope(await users.list(undefined, { page, limit, countTotal: true }), { page, limit }, userReader(request, toUserReadV1))
    },
  )

  app.post(
    '/',
    signUpRoute(app, app.config.userSignup, {
      tags,
      summary: 'Create a user',
      body: UserCreate,
      response: { 201: UserRead, ...errorResponses(409, 422) },
    }),
    async (request, reply) => reply.code(201).send(userReader(request, toUserReadV1, 'writer')(await users.signUp(request.body, clientOf(request)))),
  )

  await app.register(
    userItemRoutes({
      read: UserRead,
      update: UserUpdate,
      toUserRead: toUserReadV1,
      fromUserUpdate: fromUserUpdateV1,
      avatar: {
        summary: 'Upload a profile image (that user or a superuser)',
        response: AvatarResponse,
        toResponse: (user) => ({ message: 'Profile image updated', profile_image_url: user.profileImageUrl }),
      },
    }),
  )

  app.patch(
    '/:user_id/tier',
    protectedRoute(app, {
      tags,
      summary: "Set a user's subscription tier (superuser)",
      params: UserIdParams,
      body: Type.Object({ tier_id: Type.Union([RecordId, Type.Null()]) }, { additionalProperties: false, title: 'UserTierUpdate' }),
      response: { 200: UserRead, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => userReader(request, toUserReadV1, 'writer')(await users.setTier(callerOf(request).user, request.params.user_id, request.body.tier_id)),
  )
}

export default usersRoutes
