// Options for a route that needs a logged-in caller: it authenticates first (bearer token, or
// X-API-Key where keys are allowed), declares its security schemes in the OpenAPI document, and
// lists the 401 it can answer. A key may only use the methods its scopes allow (read: GET).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { API_KEYS_REFUSED } from '../../plugins/authentication.js'
import { DomainError } from '../../shared/errors.js'
import { bearer, bearerOrApiKey } from './security-scheme.js'
import { errorResponses } from './responses.js'

type OnRequest = (request: FastifyRequest) => Promise<void>

export const API_KEY_SCOPE_TOO_NARROW = 'API key scope does not allow this'

const READ_METHODS = new Set(['GET', 'HEAD'])

async function checkApiKeyScope(request: FastifyRequest): Promise<void> {
  const grant = request.caller?.apiKey
  if (grant && !grant.scopes.includes(READ_METHODS.has(request.method) ? 'read' : 'write')) {
    throw new DomainError('forbidden', API_KEY_SCOPE_TOO_NARROW)
  }
}

async function refuseApiKeys(request: FastifyRequest): Promise<void> {
  if (request.caller?.apiKey) throw new DomainError('forbidden', API_KEYS_REFUSED)
}

export function protectedRoute<S extends { response: Record<number, TSchema> }>(
  app: FastifyInstance,
  schema: S,
  options: { onRequest?: OnRequest[]; apiKeys?: boolean } = {},
) {
  const apiKeys = options.apiKeys ?? true
  return {
    onRequest: [app.authenticate, apiKeys ? checkApiKeyScope : refuseApiKeys, ...(options.onRequest ?? [])],
    schema: { ...schema, security: apiKeys ? bearerOrApiKey : bearer, response: { ...schema.response, ...errorResponses(401) } },
  }
}
