// Resolves the caller of a request from its bearer token, for routes that ask for it with
// `onRequest: app.authenticate`. The same mechanism serves every API version.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Caller } from '../modules/auth/auth.service.js'
import { notAuthenticated } from '../shared/errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyRequest {
    caller: Caller | null
  }
}

// JWTs we issue are far shorter; anything longer is not ours and is refused before parsing.
const MAX_TOKEN_LENGTH = 4096

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const [scheme, token, ...rest] = header.trim().split(/\s+/)
  if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0 || token.length > MAX_TOKEN_LENGTH) {
    return undefined
  }
  return token
}

/** The authenticated caller; only valid on routes that ran app.authenticate. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw notAuthenticated()
  return request.caller
}

export default fp(
  async (app) => {
    app.decorateRequest('caller', null)
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = bearerToken(request.headers.authorization)
      if (!token) throw notAuthenticated()
      request.caller = await app.services.auth.authenticate(token)
    })
  },
  { name: 'authentication', dependencies: ['services'] },
)
