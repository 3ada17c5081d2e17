import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'

// Conservative headers on every response (nosniff, frame denial, no referrer, HSTS, ...).
// Avatars are meant to be embedded by front ends on other origins, hence cross-origin CORP.
export default fp(
  async (app) => {
    await app.register(helmet, {
      global: true,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      referrerPolicy: { policy: 'no-referrer' },
    })
  },
  { name: 'security-headers' },
)
