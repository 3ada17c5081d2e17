import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'

// Conservative headers on every response (nosniff, frame denial, no referrer, HSTS, CSP, ...).
// Avatars are meant to be embedded by front ends on other origins, hence cross-origin CORP.
// The docs pages must also work on plain-HTTP hosts (TLS usually ends at a proxy), so the CSP
// does not ask browsers to upgrade their requests to HTTPS.
export default fp(
  async (app) => {
    await app.register(helmet, {
      global: true,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      referrerPolicy: { policy: 'no-referrer' },
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    })
  },
  { name: 'security-headers' },
)
