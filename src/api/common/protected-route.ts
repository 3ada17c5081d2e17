// Options for a route that needs a logged-in caller: it authenticates first, declares the bearer
// security scheme in the OpenAPI document, and lists the 401 it can answer.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { bearer } from './security-scheme.js'
import { errorResponses } from './responses.js'

type OnRequest = (request: FastifyRequest) => Promise<void>

export function protectedRoute<S extends { response: Record<number, TSchema> }>(
  app: FastifyInstance,
  schema: S,
  options: { onRequest?: OnRequest[] } = {},
) {
  return {
    onRequest: [app.authenticate, ...(options.onRequest ?? [])],
    schema: { ...schema, security: bearer, response: { ...schema.response, ...errorResponses(401) } },
  }
}
