import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

import { redactUrl } from '../shared/redact-url.js'

// One line per request ("request completed": method, url, status, time) at info level; the URL's
// query goes through redactUrl, so a mailed link's token never reaches the log.
// A request made in a support impersonation names the user and the superuser acting as them.
// Registered only when info is enabled, so at warn and above requests pay nothing for it.
const impersonationOf = (request: FastifyRequest) => {
  const actor = request.caller?.token?.actor
  return actor ? { userId: request.caller?.user.id, impersonatorId: actor.superuserId } : {}
}

export default fp(
  async (app) => {
    if (!app.logger.isLevelEnabled('info')) return
    app.addHook('onResponse', (request, reply, done) => {
      app.logger.info(
        { reqId: request.id, method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime, ...impersonationOf(request) },
        'request completed',
      )
      done()
    })
  },
  { name: 'access-log', dependencies: ['app-context'] },
)
