import fp from 'fastify-plugin'

// Once close() begins, Fastify stops accepting and waits for open connections. A keep-alive
// connection whose request is still in flight would otherwise stay open after its response
// and hold the shutdown until the client lets go; "Connection: close" ends it right there.
export default fp(
  async (app) => {
    let closing = false
    app.addHook('preClose', (done) => {
      closing = true
      done()
    })
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close')
      done(null, payload)
    })
  },
  { name: 'graceful-shutdown' },
)
