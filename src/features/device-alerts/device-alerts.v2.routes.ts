// The "this wasn't me" answer to a new-device alert, for a frontend's own page (NOT_ME_URL).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'

const deviceAlertRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deviceAlerts } = app.services
  app.post(
    '/devices/not-me',
    {
      // The mailed token is the credential; sign-in pages are not the door.
      config: { door: 'exempt' },
      schema: {
        tags: ['account'],
        summary: "Answer a new-device alert with \"this wasn't me\": that session and every other end, and a password reset is mailed",
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: "The alert link's token" }) }, { additionalProperties: false }),
        response: { 200: MessageResponse, ...errorResponses(400, 422, 429) },
      },
    },
    async (request) => {
      await deviceAlerts.notMe(request.body.token, clientOf(request))
      return { message: 'Every session was signed out; a password reset link is on its way' }
    },
  )
}

export default deviceAlertRoutes
