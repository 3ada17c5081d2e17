// Cross-origin calls from browser apps (CORS_ORIGINS, docs/deploy.md "Frontends on another
// origin"). Listed origins may send credentials (the refresh cookie); `*` allows every origin
// without them. An origin not listed gets no Access-Control-Allow-Origin, so the browser keeps
// the answer from its page. Registered before authentication and the request limits: a
// preflight is answered in the onRequest hook before either runs, and every other answer
// (a 401, a 429) carries the headers, so a page can read its `detail` and `code`.
import cors from '@fastify/cors'
import fp from 'fastify-plugin'

import type { CorsOrigins } from '../config.js'
import { originMatcher, originPatterns } from '../shared/origin-list.js'
import { WarnOnce } from '../shared/warn-once.js'

/** Response headers a page may read: limits, retry hints, the request id and version lifecycle. */
export const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Location',
  'Deprecation',
  'Sunset',
  'Link',
  'X-API-Deprecation',
  'X-API-Sunset',
]
export const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
/** Browsers cache a preflight's answer this long (Chromium caps it at two hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600

/** Whether a page of an origin may call the API (the login CSRF check lets these through too). */
export function corsAllows(origins: CorsOrigins): (origin: string) => boolean {
  return origins.any ? () => true : originMatcher(origins)
}

export default fp<{ origins: CorsOrigins; ownOrigin: string }>(
  async (app, { origins, ownOrigin }) => {
    // A page the browser will keep the answer from is the frontend's silent failure: said once
    // per origin in the log, with the setting that would let it in.
    const allows = corsAllows(origins)
    const refusals = new WarnOnce(app.logger)
    app.addHook('onRequest', (request, _reply, done) => {
      const origin = request.headers.origin
      if (typeof origin === 'string' && origin !== ownOrigin && origin !== 'null' && !allows(origin)) {
        refusals.warn(origin, { origin, setting: 'CORS_ORIGINS' }, `a page on ${origin} called the API, and CORS_ORIGINS does not list it: its browser keeps the answer from it`)
      }
      done()
    })
    // Nothing listed: no CORS headers at all, and no origin is ever allowed.
    if (!origins.any && origins.exact.length === 0 && origins.anyPort.length === 0) return
    await app.register(cors, {
      origin: origins.any ? '*' : originPatterns(origins),
      credentials: !origins.any,
      methods: ALLOWED_METHODS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      // Any OPTIONS is answered as a preflight (204), never with a plain-text 400.
      strictPreflight: false,
    })
  },
  { name: 'cors' },
)
