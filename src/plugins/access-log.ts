import fp from 'fastify-plugin'

import { redactUrl } from '../shared/redact-url.js'

// One line per request ("request completed": method, url, status, time) at info level; the URL's
// query goes through redactUrl, so a mailed link's token never reaches the log.
// Registered only when info is enabled, so at warn and above requests pay nothing for it.
export default fp(
  async (app) => {
    if (!app.logger.isLevelEnabled('info')) return
    app.addHook('onResponse', (request, reply, done) => {
      app.logger.info(
        { reqId: request.id, method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime },
        'request completed',
      )
      done()
    })
  },
  { name: 'access-log', dependencies: ['app-context'] },
)
