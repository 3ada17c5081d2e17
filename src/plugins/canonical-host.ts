// Development only: the service answers on every loopback name, but a browser that opens one of
// its flows (a sign-in page, the account pages, the admin console, a provider sign-in) on another
// name than PUBLIC_URL's is sent there first (307), before any flow sets a cookie. A flow started
// on 127.0.0.1 whose provider then returns to localhost would find no cookie of its own
// (`invalid_state`), and passkeys refuse an IP address as their relying party.
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

import { isLoopbackName } from '../config.js'

/** The pages a browser opens, which may set a flow's cookie. */
const BROWSER_FLOWS = /^\/(account\/|admin(\/|$)|api\/v2\/auth\/[^/]+\/authorize)/

export default fp<{ publicUrl: string }>(
  async (app, { publicUrl }) => {
    const canonical = new URL(publicUrl)
    if (!isLoopbackName(canonical.hostname)) return
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !BROWSER_FLOWS.test(request.url)) return done()
      const host = request.host
      let asked: URL
      try {
        asked = new URL(`http://${host}`)
      } catch {
        return done()
      }
      if (asked.hostname === canonical.hostname || !isLoopbackName(asked.hostname)) return done()
      // The same machine and port under PUBLIC_URL's name (its port may be 0: chosen at start).
      asked.hostname = canonical.hostname
      reply.header('cache-control', 'no-store').redirect(`${asked.origin}${request.url}`, 307)
    })
  },
  { name: 'canonical-host' },
)
