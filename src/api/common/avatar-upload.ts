// Reading the multipart avatar upload, for every version's avatar route.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { FILE_TOO_LARGE } from '../../plugins/error-handler.js'
import type { AvatarUpload } from '../../modules/avatars/avatars.service.js'
import { DomainError } from '../../shared/errors.js'
import { UserIdParams } from '../../modules/users/users.schemas.js'
import { bearer } from './openapi.js'
import { errorResponses } from './responses.js'
import { missingField } from './validation-error.js'

// Room for multipart headers and boundaries around the file itself.
const MULTIPART_OVERHEAD_BYTES = 64 * 1024

/** An onRequest hook refusing a declared oversize body before any of it is read. */
function refuseDeclaredOversize(uploadMaxBytes: number) {
  return async (request: FastifyRequest) => {
    const length = Number(request.headers['content-length'])
    if (length > uploadMaxBytes + MULTIPART_OVERHEAD_BYTES) throw new DomainError('too_large', FILE_TOO_LARGE)
  }
}

/** The one file part named "file"; reading it fails with 413 past UPLOAD_MAX_BYTES. */
export async function avatarUpload(request: FastifyRequest): Promise<AvatarUpload> {
  const fileSize = request.server.config.uploadMaxBytes
  const part = await request.file({ limits: { fileSize, files: 1, fields: 10, parts: 20 } })
  if (!part || part.fieldname !== 'file') throw missingField('body', 'file')
  return { contentType: part.mimetype, read: () => part.toBuffer() }
}

/** Route options of every version's POST /users/{user_id}/avatar; only the response shape differs. */
export function avatarRouteOptions<Response extends TSchema>(app: FastifyInstance, summary: string, response: Response) {
  const { uploadMaxBytes } = app.config
  return {
    onRequest: [app.authenticate, refuseDeclaredOversize(uploadMaxBytes)],
    schema: {
      tags: ['users'],
      summary,
      description: `Multipart form with one file part named "file": a PNG, JPEG, GIF or WebP image of at most ${uploadMaxBytes} bytes.`,
      security: bearer,
      consumes: ['multipart/form-data'],
      params: UserIdParams,
      response: { 200: response, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
    },
  }
}
