// Options for a route that needs a logged-in caller: it authenticates first (bearer token, or
// X-API-Key where keys are allowed), declares its security schemes in the OpenAPI document, and
// lists the 401 it can answer. A key's scopes are checked for every route, public ones included,
// where the caller is resolved (src/plugins/authentication.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

import { callerOf } from '../../plugins/authentication.js'
import { apiKeysRefused, assertSuperuser, DomainError } from '../../shared/errors.js'
import { errorResponses } from './responses.js'
import { bearer, bearerOrApiKey } from './security-scheme.js'

type OnRequest = (request: FastifyRequest) => Promise<void>

async function refuseApiKeys(request: FastifyRequest): Promise<void> {
  if (request.caller?.apiKey) throw apiKeysRefused()
}

/** With REQUIRE_MFA_FOR_SUPERUSERS, a superuser without a second factor is refused until they enrol. */
const MFA_ENROLMENT_REQUIRED = 'Second factor required for superusers'

async function requireSuperuser(request: FastifyRequest): Promise<void> {
  const { user } = callerOf(request)
  assertSuperuser(user)
  if (request.server.config.mfa.requireForSuperusers && !(await request.server.services.secondFactors.isEnrolled(user.id))) {
    throw new DomainError('forbidden', MFA_ENROLMENT_REQUIRED, { code: 'mfa_enrolment_required' })
  }
}

/**
 * Options of a route only superusers may use: API keys are refused on it, whoever owns them, and
 * anyone else is refused (403) before the request is validated; so is, with
 * REQUIRE_MFA_FOR_SUPERUSERS, a superuser with no second factor. The service checks again.
 */
export const superusersOnly = { apiKeys: false, onRequest: [requireSuperuser] }

export function protectedRoute<S extends { response: Record<number, TSchema> }>(
  app: FastifyInstance,
  schema: S,
  options: { onRequest?: OnRequest[]; apiKeys?: boolean } = {},
) {
  const apiKeys = options.apiKeys ?? true
  return {
    onRequest: [app.authenticate, ...(apiKeys ? [] : [refuseApiKeys]), ...(options.onRequest ?? [])],
    schema: { ...schema, security: apiKeys ? bearerOrApiKey : bearer, response: { ...schema.response, ...errorResponses(401) } },
  }
}
