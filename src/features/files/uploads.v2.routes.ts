// Uploads that do not pass their bytes through a multipart form: the client asks for a target
// (a presigned PUT on S3, the service's own signed URL on local disk), sends the bytes there, and
// completes; the service then checks what the store holds and answers the file.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { toFileRead } from './files.v2.mappers.js'
import { ownerOf } from './files.v2.routes.js'
import { FileRead, ImageRefusedResponse, UploadContentQuery, UploadCreate, UploadIdParams, UploadTargetRead } from './files.v2.schemas.js'

const tags = ['files']

/** The local upload URL takes the bytes as they come, whatever type they declare: in a scope of its own, without the body parsers. */
const uploadContentRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { files } = app.services
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))

  app.put(
    '/uploads/:upload_id/content',
    {
      config: { door: 'exempt' },
      schema: {
        tags,
        summary: "The local driver's upload URL: the bytes of an upload, as POST /uploads signed it",
        description: 'Authorised by the signature in the URL, not by credentials; at most the declared size.',
        params: UploadIdParams,
        querystring: UploadContentQuery,
        response: { 200: MessageResponse, ...errorResponses(403, 404, 413, 422) },
      },
      bodyLimit: app.config.files.maxBytes,
    },
    async (request) => {
      await files.receive(request.params.upload_id, request.query.expires, request.query.signature, request.body as AsyncIterable<Buffer>)
      return { message: 'Upload received' }
    },
  )
}

const uploadsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { files } = app.services

  app.post(
    '/uploads',
    protectedRoute(
      app,
      {
        tags,
        summary: 'Start an upload straight to the store',
        description: 'Reserves `size` against the quota and answers where to PUT the bytes (no credentials needed there); then POST /uploads/{upload_id}/complete. An upload never completed expires (UPLOAD_EXPIRY_SECONDS) and its reservation is released.',
        body: UploadCreate,
        response: { 201: UploadTargetRead, ...errorResponses(413, 415, 422) },
      },
      { wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request, reply) => {
      const target = await files.startUpload(ownerOf(request), { name: request.body.name, size: request.body.size, contentType: request.body.content_type })
      return reply.code(201).send({ upload_id: target.uploadId, url: target.url, method: target.method, headers: target.headers, expires_at: target.expiresAt })
    },
  )

  await app.register(uploadContentRoute)

  app.post(
    '/uploads/:upload_id/complete',
    protectedRoute(
      app,
      {
        tags,
        summary: 'Complete an upload: the stored size, SHA-256 and sniffed type are checked, and the file answered',
        params: UploadIdParams,
        response: { 201: FileRead, ...errorResponses(404, 409, 413, 415), 422: ImageRefusedResponse },
      },
      { wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request, reply) => reply.code(201).send(toFileRead(await files.completeUpload(ownerOf(request), request.params.upload_id))),
  )
}

export default uploadsV2Routes
