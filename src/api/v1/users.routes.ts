// Version 1 user endpoints (SPEC.md section 4, DESIGN.md Authorization).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { FILE_TOO_LARGE } from '../../plugins/error-handler.js'
import { callerOf } from '../../plugins/authentication.js'
import { DomainError } from '../../shared/errors.js'
import {
  AvatarResponse,
  UserCreate,
  UserIdParams,
  UserListQuery,
  UserPage,
  UserRead,
  UserSearchQuery,
  UserUpdate,
} from '../../modules/users/users.schemas.js'
import { MessageResponse, errorResponses } from '../common/responses.js'
import { missingField } from '../common/validation-error.js'

const tags = ['users']
const bearer = [{ OAuth2PasswordBearer: [] }]

// Room for multipart headers and boundaries around the file itself.
const MULTIPART_OVERHEAD_BYTES = 64 * 1024

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services
  const { uploadMaxBytes, userSignup } = app.config

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

  app.post(
    '/:user_id/avatar',
    {
      onRequest: [
        app.authenticate,
        // Refuse a declared oversize body before reading any of it.
        async (request) => {
          const length = Number(request.headers['content-length'])
          if (length > uploadMaxBytes + MULTIPART_OVERHEAD_BYTES) throw new DomainError('too_large', FILE_TOO_LARGE)
        },
      ],
      schema: {
        tags,
        summary: 'Upload a profile image (that user or a superuser)',
        description: `Multipart form with one file part named "file": a PNG, JPEG, GIF or WebP image of at most ${uploadMaxBytes} bytes.`,
        security: bearer,
        consumes: ['multipart/form-data'],
        params: UserIdParams,
        response: { 200: AvatarResponse, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    async (request) => {
      const part = await request.file({ limits: { fileSize: uploadMaxBytes, files: 1, fields: 10, parts: 20 } })
      if (!part || part.fieldname !== 'file') throw missingField('body', 'file')
      const user = await users.setAvatar(callerOf(request).user, request.params.user_id, {
        contentType: part.mimetype,
        read: () => part.toBuffer(),
      })
      return { message: 'Profile image updated', profile_image_url: user.profile_image_url }
    },
  )
}

export default usersRoutes
