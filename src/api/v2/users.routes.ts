// Version 2 user endpoints: the same services and rules as v1, v2 shapes (see mappers.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { UserIdParams } from '../../modules/users/users.schemas.js'
import { callerOf } from '../../plugins/authentication.js'
import { PageSchema } from '../../shared/pagination.js'
import avatarUploadRoutes from '../common/avatar-upload.routes.js'
import { bearer } from '../common/openapi.js'
import { errorResponses } from '../common/responses.js'
import userDeletionRoutes from '../common/user-deletion.routes.js'
import { filled, fromUserUpdateV2, mapPage, toUserReadV2 } from './mappers.js'
import {
  AvatarResponseV2,
  ListQueryV2,
  UserCreateV2,
  UserReadV2,
  UserSearchQueryV2,
  UserTierUpdateV2,
  UserUpdateV2,
} from './users.schemas.js'

const tags = ['users']

const UserPageV2 = PageSchema(UserReadV2, 'UserPageV2')

const usersRoutesV2: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services

  app.get(
    '/me',
    {
      onRequest: app.authenticate,
      schema: { tags, summary: 'The logged-in caller', security: bearer, response: { 200: UserReadV2, ...errorResponses(401) } },
    },
    async (request) => toUserReadV2(callerOf(request).user),
  )

  app.get(
    '/search',
    {
      schema: {
        tags,
        summary: 'Search users by name, age, activity and text',
        querystring: UserSearchQueryV2,
        response: { 200: UserPageV2, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { name, age, is_active: isActive, search, page, limit } = request.query
      const input = { name: filled(name), age: age === '' ? undefined : age, isActive, text: filled(search) }
      return mapPage(await users.searchPage(input, page, limit), toUserReadV2)
    },
  )

  app.get(
    '/',
    {
      schema: { tags, summary: 'List users', querystring: ListQueryV2, response: { 200: UserPageV2, ...errorResponses(422) } },
    },
    async (request) => {
      const { page, limit, search } = request.query
      return mapPage(await users.list(page, limit, filled(search)), toUserReadV2)
    },
  )

  app.post(
    '/',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: 'Create a user (logged-in caller; the new user must accept the terms)',
        security: bearer,
        body: UserCreateV2,
        response: { 201: UserReadV2, ...errorResponses(401, 409, 422) },
      },
    },
    async (request, reply) => {
      // accept_terms is checked by the schema (it must be true) and not stored.
      const { accept_terms: _accepted, ...input } = request.body
      return reply.code(201).send(toUserReadV2(await users.create(input)))
    },
  )

  app.get(
    '/:user_id',
    {
      schema: { tags, summary: 'Get a user', params: UserIdParams, response: { 200: UserReadV2, ...errorResponses(404, 422) } },
    },
    async (request) => toUserReadV2(await users.get(request.params.user_id)),
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
        body: UserUpdateV2,
        response: { 200: UserReadV2, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) =>
      toUserReadV2(await users.update(callerOf(request).user, request.params.user_id, fromUserUpdateV2(request.body))),
  )

  await app.register(userDeletionRoutes)

  await app.register(avatarUploadRoutes, {
    summary: 'Upload an avatar (that user or a superuser)',
    response: AvatarResponseV2,
    toResponse: (user) => ({ message: 'Avatar updated', avatar_url: user.profile_image_url }),
  })

  app.patch(
    '/:user_id/tier',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: "Set a user's subscription tier by name (superuser)",
        security: bearer,
        params: UserIdParams,
        body: UserTierUpdateV2,
        response: { 200: UserReadV2, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) =>
      toUserReadV2(await users.setTier(callerOf(request).user, request.params.user_id, request.body.subscription_tier)),
  )
}

export default usersRoutesV2
