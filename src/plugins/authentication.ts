// Resolves the caller of a request from its bearer token. Routes that need a caller use
// protectedRoute() (src/api/common/protected-route.ts), which runs app.authenticate; the
// sign-up route runs app.identify, which leaves anonymous callers anonymous.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Caller } from '../modules/auth/auth.service.js'
import { DomainError, notAuthenticated } from '../shared/errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Requires a valid bearer token; sets request.caller or fails with 401. */
    authenticate: (request: FastifyRequest) => Promise<void>
    /** Sets request.caller when a valid bearer token comes with the request; otherwise leaves it null. */
    identify: (request: FastifyRequest) => Promise<void>
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
    const { auth } = app.services
    app.decorateRequest('caller', null)
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = bearerToken(request.headers.authorization)
      if (!token) throw notAuthenticated()
      request.caller = await auth.authenticate(token)
    })
    app.decorate('identify', async (request: FastifyRequest) => {
      const token = bearerToken(request.headers.authorization)
      if (!token) return
      try {
        request.caller = await auth.authenticate(token)
      } catch (error) {
        if (!(error instanceof DomainError && error.kind === 'unauthenticated')) throw error
      }
    })
  },
  { name: 'authentication', dependencies: ['app-context'] },
)
