// POST /users/{user_id}/avatar for every version: read the one multipart file part "file" and
// hand it to the users service. Versions differ only in the response shape.
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

import { MULTIPART_OVERHEAD_BYTES, readingMultipart } from '../../api/common/multipart.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { missingField } from '../../api/common/validation-error.js'
import { callerOf } from '../../plugins/authentication.js'
import { DomainError, FILE_TOO_LARGE } from '../../shared/errors.js'
import type { User } from './index.js'

export interface AvatarRouteOptions {
  summary: string
  response: TSchema
  toResponse: (user: User) => unknown
}

const avatarUploadRoutes: FastifyPluginAsyncTypebox<AvatarRouteOptions> = async (app, { summary, response, toResponse }) => {
  const { uploadMaxBytes } = app.config
  // Registered here only: the plugin adds hooks to every request of the scope it is in.
  await app.register(multipart, { throwFileSizeLimit: true })

  const refuseDeclaredOversize = async (request: FastifyRequest) => {
    const length = Number(request.headers['content-length'])
    if (length > uploadMaxBytes + MULTIPART_OVERHEAD_BYTES) throw new DomainError('too_large', FILE_TOO_LARGE)
  }

  app.post(
    '/:user_id/avatar',
    protectedRoute(
      app,
      {
        tags: ['users'],
        summary,
        description: `Multipart form with one file part named "file": a PNG, JPEG, GIF or WebP image of at most ${uploadMaxBytes} bytes.`,
        consumes: ['multipart/form-data'],
        params: UserIdParams,
        response: { 200: response, ...errorResponses(400, 403, 404, 413, 415, 422) },
      },
      { onRequest: [refuseDeclaredOversize], wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request) => {
      const part = await readingMultipart(() => request.file({ limits: { fileSize: uploadMaxBytes, files: 1, fields: 10, parts: 20 } }))
      if (!part || part.fieldname !== 'file') throw missingField('body', 'file')
      const upload = { contentType: part.mimetype, read: () => readingMultipart(() => part.toBuffer()) }
      return toResponse(await app.services.users.setAvatar(callerOf(request).user, request.params.user_id, upload))
    },
  )
}

export default avatarUploadRoutes
