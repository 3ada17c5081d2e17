// Options for a route on one organization (`{org}` in its path): the caller authenticates, then
// their role in it is read from the database before the request is validated: 404
// `org_not_found` for a non-member (never 403), 403 `org_role_required` below the route's role,
// and 403 `mfa_enrolment_required` when the organization requires a second factor they lack. The
// role each route asks is in its config (`orgAccess`), so the access matrix is generated from the
// route table (orgs-access.v2.test.ts) and covers the route someone adds next year.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

import type { ImpersonationRule, WayIn } from '../../api/common/protected-route.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { actorOf } from '../../plugins/authentication.js'
import { notFound } from '../../shared/errors.js'
import type { OrgRole, OrgView } from './org.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role in the organization a route on one needs (org-route.http.ts). */
    orgAccess?: OrgRole
  }
  interface FastifyRequest {
    /** The organization of the path, as the caller may use it (set by orgRoute). */
    org?: OrgView
  }
}

export interface OrgRouteOptions {
  role: OrgRole
  /** Reads take API keys (as their owner, within their scopes); changes take only a signed-in session. */
  apiKeys?: boolean
  wayIn?: WayIn
  impersonation?: ImpersonationRule
  /** Leaving needs no second factor, whatever the organization requires. */
  mfaExempt?: (request: FastifyRequest) => boolean
}

export function orgRoute<S extends { response: Record<number, TSchema> }>(app: FastifyInstance, schema: S, options: OrgRouteOptions) {
  const base = protectedRoute(app, { ...schema, response: { ...schema.response, ...errorResponses(403, 404) } }, { apiKeys: options.apiKeys ?? false, ...(options.wayIn ? { wayIn: options.wayIn } : {}), ...(options.impersonation ? { impersonation: options.impersonation } : {}) })
  const resolveOrg = async (request: FastifyRequest) => {
    const { org } = request.params as { org?: string }
    request.org = await app.services.orgs.access(actorOf(request), org ?? '', options.role, { mfaExempt: options.mfaExempt?.(request) ?? false })
  }
  return { ...base, config: { ...base.config, orgAccess: options.role }, onRequest: [...base.onRequest, resolveOrg] }
}

/** The organization orgRoute resolved for this request. */
export function orgOf(request: FastifyRequest): OrgView {
  if (!request.org) throw notFound()
  return request.org
}
