import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { serviceUnavailable } from '../shared/errors.js'
import { errorResponses } from './common/responses.js'

const Status = Type.Object({ status: Type.Literal('ok') })

// /health: the process is up. /ready: the database (and Redis, when configured) answer too.
const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', { schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' as const }))

  app.get('/ready', { schema: { hide: true, response: { 200: Status, ...errorResponses(503) } } }, async () => {
    try {
      await app.services.checkReady()
    } catch {
      throw serviceUnavailable()
    }
    return { status: 'ok' as const }
  })
}

export default healthRoutes
