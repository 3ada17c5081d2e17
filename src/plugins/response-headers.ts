import fp from 'fastify-plugin'

// Headers for every API response, after the OWASP REST Security Cheat Sheet: JSON is never
// sniffed, framed, cached or allowed to load anything, and HTTPS sticks. Pages that set their own
// policy (the docs, through helmet in src/api/docs.ts) keep it. A fixed object set in one
// hook: @fastify/helmet rebuilds its middleware on every request, which cost about 40% of
// the API's throughput (docs/performance.md).
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
})

// Graceful shutdown: once close() begins, Fastify stops accepting and waits for open
// connections. A keep-alive connection whose request is still in flight would otherwise stay
// open after its response and hold the shutdown until the client lets go; "Connection: close"
// ends it right there.
//
// Both live in one onSend hook: every hook a route has costs a pass through Fastify's hook
// runner on every request.
export default fp(
  async (app) => {
    let closing = false
    app.addHook('preClose', (done) => {
      closing = true
      done()
    })
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id)
      if (!reply.hasHeader('content-security-policy')) {
        reply.headers(API_SECURITY_HEADERS)
        // API answers carry personal data or tokens: no cache may keep them. Routes that serve
        // public, immutable bytes (avatars) set their own policy.
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
      }
      if (closing) reply.header('connection', 'close')
      done(null, payload)
    })
  },
  { name: 'response-headers' },
)
