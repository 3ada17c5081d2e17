// Version 2 user endpoints: the same services and rules as v1, v2 shapes (see mappers.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import { FilterRefusedResponse } from '../content-fields/index.js'
import { signUpRoute } from '../sign-up/index.js'
import { userItemRoutes, userMeRoute } from './user-items.routes.js'
import { userReader } from './user-view.http.js'
import { fromUserUpdateV2, toUserReadV2 } from './users.v2.mappers.js'
import { AvatarResponseV2, UserListQueryV2, UserSearchQueryV2, userShapesV2,UserTierUpdateV2 } from './users.v2.schemas.js'

const tags = ['users']

const usersRoutesV2: FastifyPluginAsyncTypebox = async (app) => {
  const { users, tiers } = app.services
  const { read: UserReadV2, create: UserCreateV2, update: UserUpdateV2, page: UserPageV2 } = userShapesV2(app.services.contentFields.shapes('users'))

  await app.register(userMeRoute({ read: UserReadV2, toUserRead: toUserReadV2 }))

  app.get(
    '/search',
    {
      schema: {
        tags,
        summary: 'Search users by name, age, activity and text',
        querystring: UserSearchQueryV2,
        response: { 200: UserPageV2, ...errorResponses(400, 422), 422: FilterRefusedResponse },
      },
    },
    async (request) => {
      const { name, age, is_active: isActive, search } = request.query
      const filter = { name: filled(name), age: filled(age), isActive, text: filled(search) }
      const pageRequest = cursorPageRequest(request.query)
      const found = await users.search(filter, pageRequest, filled(request.query.filter), request.caller?.user ?? null)
      return toCursorPageEnvelope(found, pageRequest, userReader(request, toUserReadV2))
    },
  )

  app.get(
    '/',
    { schema: { tags, summary: 'List users', querystring: UserListQueryV2, response: { 200: UserPageV2, ...errorResponses(400, 422), 422: FilterRefusedResponse } } },
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      const found = await users.list(filled(request.query.search), pageRequest, filled(request.query.filter), request.caller?.user ?? null)
      return toCursorPageEnvelope(found, pageRequest, userReader(request, toUserReadV2))
    },
  )

  app.post(
    '/',
    signUpRoute(app, 'authenticated', {
      tags,
      summary: 'Create a user (logged-in caller; the new user must accept the terms)',
      description: 'Someone signing themselves up uses POST /api/v2/signup; an anonymous call here answers 401 saying so.',
      body: UserCreateV2,
      response: { 201: UserReadV2, ...errorResponses(409, 422) },
    }, { anonymousDetail: 'Not authenticated: POST /api/v2/users/ creates a user for a logged-in caller; to sign yourself up, POST /api/v2/signup' }),
    async (request, reply) => {
      // accept_terms is checked by the schema (it must be true) and not stored.
      const { accept_terms: _accepted, ...input } = request.body
      return reply.code(201).send(userReader(request, toUserReadV2, 'writer')(await users.create(input, { creator: callerOf(request).user })))
    },
  )

  await app.register(
    userItemRoutes({
      read: UserReadV2,
      update: UserUpdateV2,
      toUserRead: toUserReadV2,
      fromUserUpdate: fromUserUpdateV2,
      avatar: {
        summary: 'Upload an avatar (that user or a superuser)',
        response: AvatarResponseV2,
        toResponse: (user) => ({ message: 'Avatar updated', avatar_url: user.profileImageUrl }),
      },
    }),
  )

  app.patch(
    '/:user_id/tier',
    protectedRoute(app, {
      tags,
      summary: "Set a user's subscription tier by name (superuser)",
      params: UserIdParams,
      body: UserTierUpdateV2,
      response: { 200: UserReadV2, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      const name = request.body.subscription_tier
      const tierId = name === null ? null : (await tiers.getByName(name)).id
      return userReader(request, toUserReadV2, 'writer')(await users.setTier(callerOf(request).user, request.params.user_id, tierId))
    },
  )
}

export default usersRoutesV2
