import fp from 'fastify-plugin'

// One line per request ("request completed": method, url, status, time) at info level.
// Registered only when info is enabled, so at warn and above requests pay nothing for it.
export default fp(
  async (app) => {
    if (!app.logger.isLevelEnabled('info')) return
    app.addHook('onResponse', (request, reply, done) => {
      app.logger.info(
        { reqId: request.id, method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
        'request completed',
      )
      done()
    })
  },
  { name: 'access-log', dependencies: ['app-context'] },
)
