// Version 1 user endpoints (SPEC.md section 4, DESIGN.md Authorization).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { callerOf } from '../../plugins/authentication.js'
import {
  AvatarResponse,
  RecordId,
  UserCreate,
  UserIdParams,
  UserListQuery,
  UserPage,
  UserRead,
  UserSearchQuery,
  UserUpdate,
} from '../../modules/users/users.schemas.js'
import { errorResponses } from '../common/responses.js'
import userDeletionRoutes from '../common/user-deletion.routes.js'
import avatarUploadRoutes from '../common/avatar-upload.routes.js'
import { bearer } from '../common/openapi.js'

const tags = ['users']

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services
  const { userSignup } = app.config

  // Static paths are registered first for readability; the router matches them before /:user_id anyway.
  app.get(
    '/me',
    {
      onRequest: app.authenticate,
      schema: { tags, summary: 'The logged-in caller', security: bearer, response: { 200: UserRead, ...errorResponses(401) } },
    },
    async (request) => callerOf(request).user,
  )

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
      return users.search({
        name: name === undefined || name === '' ? undefined : name,
        age: age === undefined || age === '' ? undefined : age,
        isActive,
      })
    },
  )

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List users',
        querystring: UserListQuery,
        response: { 200: UserPage, ...errorResponses(422) },
      },
    },
    async (request) => users.list(request.query.page, request.query.items_per_page),
  )

  app.post(
    '/',
    {
      ...(userSignup === 'authenticated' ? { onRequest: app.authenticate } : {}),
      schema: {
        tags,
        summary: 'Create a user',
        ...(userSignup === 'authenticated' ? { security: bearer } : {}),
        body: UserCreate,
        response: { 201: UserRead, ...errorResponses(401, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await users.create(request.body)),
  )

  app.get(
    '/:user_id',
    {
      schema: { tags, summary: 'Get a user', params: UserIdParams, response: { 200: UserRead, ...errorResponses(404, 422) } },
    },
    async (request) => users.get(request.params.user_id),
  )

  app.patch(
    '/:user_id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Update a user (that user or a superuser)',
        security: bearer,
        params: UserIdParams,
        body: UserUpdate,
        response: { 200: UserRead, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) => users.update(callerOf(request).user, request.params.user_id, request.body),
  )

  await app.register(userDeletionRoutes)

  await app.register(avatarUploadRoutes, {
    summary: 'Upload a profile image (that user or a superuser)',
    response: AvatarResponse,
    toResponse: (user) => ({ message: 'Profile image updated', profile_image_url: user.profile_image_url }),
  })

  app.patch(
    '/:user_id/tier',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: "Set a user's subscription tier (superuser)",
        security: bearer,
        params: UserIdParams,
        body: Type.Object({ tier_id: Type.Union([RecordId, Type.Null()]) }, { additionalProperties: false, title: 'UserTierUpdate' }),
        response: { 200: UserRead, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => users.setTier(callerOf(request).user, request.params.user_id, request.body.tier_id),
  )
}

export default usersRoutes
