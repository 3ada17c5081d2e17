// Login CSRF: a page on another site can submit an HTML form to POST /login, and the browser
// stores the cookies of the answer (the refresh token, the device cookie) for this service, so
// the victim's browser ends up logged in to the attacker's account. Browsers say where a request
// comes from (Sec-Fetch-Site, Origin); a login from another site is refused. Same-site frontends
// (app.example.com calling api.example.com), the service's own pages, clients that send neither
// header (curl, servers) and the origins `allowed` names (the service's own, and CORS_ORIGINS'
// listed origins) are let through. CORS_ORIGINS=* names none: any page could then log a visitor in.
import type { FastifyRequest } from 'fastify'

import { DomainError } from '../../shared/errors.js'

export const CROSS_SITE_REFUSED = 'Cross-site request refused'

const crossSiteRefused = () => new DomainError('forbidden', CROSS_SITE_REFUSED, { code: 'cross_site_refused' })

/** The origin ("https://host:port") this request was addressed to, as the browser names it. */
const ownOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`

/** An onRequest hook refusing requests a browser sends from another site. */
export function refuseCrossSite(allowed: (origin: string) => boolean) {
  return async (request: FastifyRequest): Promise<void> => {
    const origin = request.headers.origin
    if (origin !== undefined && origin !== 'null' && (origin === ownOrigin(request) || allowed(origin))) return
    const site = request.headers['sec-fetch-site']
    if (site === 'cross-site' || (origin !== undefined && site !== 'same-site' && site !== 'same-origin')) throw crossSiteRefused()
  }
}
