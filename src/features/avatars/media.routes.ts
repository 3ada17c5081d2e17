import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { notFound } from '../../shared/errors.js'
import { AVATAR_URL_PREFIX, DEFAULT_AVATAR_NAME } from './avatars.service.js'

// Serves stored avatars. Names are generated (UUIDs) and never reused, so they cache forever.
const mediaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    `${AVATAR_URL_PREFIX}:name`,
    { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const image = await app.services.avatars.load(request.params.name)
      if (!image) throw notFound()
      const immutable = request.params.name !== DEFAULT_AVATAR_NAME
      return reply
        .type(image.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=86400')
        .send(image.data)
    },
  )
}

export default mediaRoutes
