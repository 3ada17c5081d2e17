// Options for a route that needs a logged-in caller: it authenticates first (bearer token, or
// X-API-Key where keys are allowed), declares its security schemes in the OpenAPI document, and
// lists the 401 it can answer. A key's scopes are checked for every route, public ones included,
// where the caller is resolved (src/plugins/authentication.ts).
//
// Every such route that is not a read declares whether it adds a way into the account (`wayIn`):
// one that does (a passkey, a linked identity, an API key, an authenticator app) needs a recent
// proof of identity (403 `reauthentication_required`), as does one marked `reauthenticate`
// (removing a second factor). The app refuses to start with a route that does not say
// (src/app.ts), so a route added next year is classified before it ships. Each also says what a
// support impersonation token may do on it (`impersonation`), checked the same way.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

import { callerOf, tokenCallerOf } from '../../plugins/authentication.js'
import { apiKeysRefused, assertSuperuser, DomainError } from '../../shared/errors.js'
import { errorResponses, ReauthenticationRefusedResponse } from './responses.js'
import { bearer, bearerOrApiKey } from './security-scheme.js'

type OnRequest = (request: FastifyRequest) => Promise<void>

/** Whether a route adds a way into the caller's account: `adds` needs a recent proof of identity. */
export type WayIn = 'adds' | 'none'

/**
 * What a support impersonation token (src/features/moderation) may do on a route that changes
 * something: `allowed`; `refused` (403 `impersonation_forbidden`: the ways into the account,
 * sessions, exports, deletion); or `ends` (ending the impersonation: logout, its own end), which
 * a read-only token may use too. Routes that add a way in or need a fresh session are `refused`.
 */
export type ImpersonationRule = 'allowed' | 'refused' | 'ends'

/** What protectedRoute puts in a route's config, for the start-up check and the route table. */
export interface ProtectedRouteConfig {
  protectedRoute?: true
  wayIn?: WayIn | undefined
  reauthenticate?: boolean
  impersonation?: ImpersonationRule | undefined
}

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into Fastify's route config
  interface FastifyContextConfig extends ProtectedRouteConfig {}
}

const FRESH_SESSION_NEEDED = 'Needs a session that proved who holds it in the last 10 minutes: otherwise 403 `reauthentication_required` (POST /api/v2/reauthenticate, or a new sign-in).'

/** 403 `reauthentication_required` unless the caller's session proved who holds it in the last 10 minutes. */
async function requireFreshSession(request: FastifyRequest): Promise<void> {
  await request.server.services.reauthentication.assertFresh(tokenCallerOf(request))
}

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
export const superusersOnly = { apiKeys: false, onRequest: [requireSuperuser], impersonation: 'refused' as const }

export function protectedRoute<S extends { response: Record<number, TSchema> }>(
  app: FastifyInstance,
  schema: S,
  options: { onRequest?: OnRequest[]; apiKeys?: boolean; wayIn?: WayIn; reauthenticate?: boolean; impersonation?: ImpersonationRule } = {},
) {
  const apiKeys = options.apiKeys ?? true
  const reauthenticate = options.reauthenticate ?? options.wayIn === 'adds'
  const impersonation = options.impersonation ?? (reauthenticate ? 'refused' : undefined)
  const config: ProtectedRouteConfig = { protectedRoute: true, wayIn: options.wayIn, reauthenticate, impersonation }
  const given = (schema as { description?: string }).description
  const description = reauthenticate ? `${given ? `${given} ` : ''}${FRESH_SESSION_NEEDED}` : given
  return {
    config,
    onRequest: [app.authenticate, ...(apiKeys ? [] : [refuseApiKeys]), ...(options.onRequest ?? []), ...(reauthenticate ? [requireFreshSession] : [])],
    schema: {
      ...schema,
      ...(description === undefined ? {} : { description }),
      security: apiKeys ? bearerOrApiKey : bearer,
      response: { ...schema.response, ...errorResponses(401), ...(reauthenticate ? { 403: ReauthenticationRefusedResponse } : {}) },
    },
  }
}
