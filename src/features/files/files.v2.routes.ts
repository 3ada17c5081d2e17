// Version 2's files: uploads through the service (multipart), reading a file and its variants
// under the read rule of its post (or its owner's), deleting one, and the caller's files and usage.
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { MULTIPART_OVERHEAD_BYTES, readingMultipart } from '../../api/common/multipart.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { optionalBearerOrApiKey } from '../../api/common/security-scheme.js'
import { missingField } from '../../api/common/validation-error.js'
import { callerOf } from '../../plugins/authentication.js'
import { DomainError } from '../../shared/errors.js'
import type { FileOwner } from './file.js'
import { sendDelivery } from './file-delivery.http.js'
import type { FileReader } from './files.service.js'
import { toFileRead, toUsageRead } from './files.v2.mappers.js'
import { FileIdParams, FileListQuery, FilePage, FileRead, ImageRefusedResponse, UsageRead, VariantParams } from './files.v2.schemas.js'

const tags = ['files']

/** A file's bytes (not JSON): whole, a range, or where the store serves them. */
const BYTES_RESPONSES = {
  200: Type.String({ format: 'binary', description: 'The bytes (local disk), with ETag; 304 when If-None-Match matches' }),
  206: Type.String({ format: 'binary', description: 'One range of the bytes (local disk)' }),
  302: Type.Null({ description: 'To a presigned URL of the store (S3) that lives FILE_URL_SECONDS' }),
  ...errorResponses(404, 416, 422),
}

export const ownerOf = (request: FastifyRequest): FileOwner => {
  const { user } = callerOf(request)
  return { id: user.id, isSuperuser: user.isSuperuser, tierId: user.tierId }
}

const readerOf = (request: FastifyRequest): FileReader | null => (request.caller ? { id: request.caller.user.id, isSuperuser: request.caller.user.isSuperuser } : null)

/** The file part's bytes; past the size limit the parser stops early and marks it truncated, which is a 413, not a shorter file. */
async function* bytesOf(file: NodeJS.ReadableStream & { truncated?: boolean }, maxBytes: number): AsyncIterable<Buffer> {
  for await (const chunk of file) yield chunk as Buffer
  if (file.truncated) throw fileTooLarge(maxBytes)
}

const fileTooLarge = (maxBytes: number) => new DomainError('too_large', `Files may be at most ${maxBytes} bytes (FILE_MAX_BYTES)`)

const filesV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { files } = app.services
  const { maxBytes } = app.config.files
  await app.register(multipart, { throwFileSizeLimit: true })

  app.post(
    '/files',
    protectedRoute(
      app,
      {
        tags,
        summary: 'Upload a file (multipart, one part named "file")',
        description: `At most ${maxBytes} bytes (FILE_MAX_BYTES). The type is sniffed from the content and must be one FILE_TYPES allows and agree with the name's extension and the part's type; images are stored without their metadata.`,
        consumes: ['multipart/form-data'],
        response: { 201: FileRead, ...errorResponses(400, 409, 413, 415), 422: ImageRefusedResponse },
      },
      { wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request, reply) => {
      const declared = Number(request.headers['content-length'])
      if (declared > maxBytes + MULTIPART_OVERHEAD_BYTES) throw fileTooLarge(maxBytes)
      const part = await readingMultipart(() => request.file({ limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 20 } }))
      if (!part || part.fieldname !== 'file') throw missingField('body', 'file')
      const claims = { name: (part.filename || 'file').slice(0, 255), declaredType: part.mimetype }
      // The quota holds the most the body can carry, until the real size is known.
      const reserve = Number.isFinite(declared) && declared > 0 ? declared : maxBytes
      const file = await readingMultipart(() => files.upload(ownerOf(request), claims, bytesOf(part.file, maxBytes), reserve))
      return reply.code(201).send(toFileRead(file))
    },
  )

  app.get(
    '/files/:file_id',
    {
      schema: {
        tags,
        summary: "A file's bytes: 302 to a short-lived store URL (S3), or the bytes (local disk, with ETag and Range)",
        security: optionalBearerOrApiKey,
        params: FileIdParams,
        response: BYTES_RESPONSES,
      },
    },
    async (request, reply) => sendDelivery(request, reply, await files.deliver(readerOf(request), request.params.file_id, clientOf(request))),
  )

  app.get(
    '/files/:file_id/variants/:preset',
    {
      schema: {
        tags,
        summary: "An image's variant by preset name (FILE_IMAGE_PRESETS), made on first request and kept",
        security: optionalBearerOrApiKey,
        params: VariantParams,
        response: BYTES_RESPONSES,
      },
    },
    async (request, reply) => sendDelivery(request, reply, await files.deliverVariant(readerOf(request), request.params.file_id, request.params.preset, clientOf(request))),
  )

  app.delete(
    '/files/:file_id',
    protectedRoute(app, { tags, summary: 'Delete a file (its owner, or a superuser)', params: FileIdParams, response: { 200: MessageResponse, ...errorResponses(404, 422) } }, { wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      const { user } = callerOf(request)
      await files.delete({ id: user.id, isSuperuser: user.isSuperuser }, request.params.file_id)
      return { message: 'File deleted' }
    },
  )

  app.get(
    '/users/me/files',
    protectedRoute(app, { tags, summary: "The caller's files, newest first", querystring: FileListQuery, response: { 200: FilePage, ...errorResponses(422) } }),
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await files.list(callerOf(request).user.id, pageRequest), pageRequest, toFileRead)
    },
  )

  app.get(
    '/users/me/usage',
    protectedRoute(app, { tags, summary: "The caller's storage usage and quota", response: { 200: UsageRead } }),
    async (request) => toUsageRead(await files.usage(ownerOf(request))),
  )
}

export default filesV2Routes
