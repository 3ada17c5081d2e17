// Resolves the caller of every request from its X-API-Key or bearer token, in one hook that runs
// before any route's own hooks (the request limits included), whatever REQUEST_LIMITS says:
// request.caller is the caller, or null for an anonymous one (or one whose credentials fail).
// Routes that need a caller use protectedRoute() (src/api/common/protected-route.ts), which runs
// app.authenticate: a 401 when request.caller is null.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'

import type { Actor } from '../shared/actor.js'
import { apiKeyScopeTooNarrow, apiKeysRefused, DomainError, notAuthenticated } from '../shared/errors.js'
import { setResponseHeaders } from './response-headers.js'

/**
 * Who calls, as the auth slice defines it: the slice adds `caller` (a signed-in user or an API
 * key's owner) and `tokenCaller` (a signed-in user) here, beside its Caller type, so this plugin
 * names no slice and every route reads the slice's own type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CallerTypes {}
type Caller = CallerTypes extends { caller: infer Known } ? Known : never
type TokenCaller = CallerTypes extends { tokenCaller: infer Known } ? Known : never

declare module 'fastify' {
  interface FastifyInstance {
    /** Requires a caller (valid credentials came with the request); fails with 401 otherwise. */
    authenticate: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyRequest {
    caller: Caller | null
  }
}

// JWTs we issue are far shorter; anything longer is not ours and is refused before parsing.
const MAX_TOKEN_LENGTH = 4096

// "Bearer <token>": the scheme in any case, whitespace around, nothing after the token, in one
// anchored match (no array from a split on every request).
const BEARER = /^\s*bearer\s+(\S+)\s*$/i

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const token = BEARER.exec(header)?.[1]
  return token !== undefined && token.length <= MAX_TOKEN_LENGTH ? token : undefined
}


/** The authenticated caller; only valid on routes that ran app.authenticate. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw notAuthenticated()
  return request.caller
}

/** The authenticated caller as services see them: who acts, and whether through an API key. */
export function actorOf(request: FastifyRequest): Actor {
  const caller = callerOf(request)
  if (caller.apiKey) return { id: caller.user.id, isSuperuser: caller.user.isSuperuser, viaApiKey: true }
  return caller.token.actor ? { id: caller.user.id, isSuperuser: caller.user.isSuperuser, impersonatedBy: caller.token.actor.superuserId } : caller.user
}

/** The caller of a route that API keys may not use (keys, sessions, passwords, email). */
export function tokenCallerOf(request: FastifyRequest): TokenCaller {
  const caller = callerOf(request)
  if (caller.apiKey) throw apiKeysRefused()
  return caller
}

const API_KEY_HEADER = 'x-api-key'

export default fp(
  async (app) => {
    const { auth, apiKeys } = app.services
    app.decorateRequest('caller', null)
    const resolve = (request: FastifyRequest): Promise<Caller> | undefined => {
      const apiKey = request.headers[API_KEY_HEADER]
      if (typeof apiKey === 'string') return auth.authenticateApiKey(apiKey)
      const token = bearerToken(request.headers.authorization)
      return token === undefined ? undefined : auth.authenticate(token)
    }
    // A callback hook: a request without credentials (most of them) goes on at once, without a promise.
    app.addHook('onRequest', function identifyCaller(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const resolving = resolve(request)
      if (resolving === undefined) return done()
      resolving.then(
        (caller) => {
          request.caller = caller
          // A key's scopes hold on every route, public ones (sign-up, login, reset) included.
          if (caller.apiKey && !apiKeys.allows(caller.apiKey, request.method)) {
            setResponseHeaders(request, reply)
            return done(apiKeyScopeTooNarrow())
          }
          done()
        },
        // Credentials that fail leave the caller anonymous; an outage of a store is an error,
        // answered before the route's own hooks could set the API's headers.
        (error: unknown) => {
          if (error instanceof DomainError && error.kind === 'unauthenticated') return done()
          setResponseHeaders(request, reply)
          done(error as Error)
        },
      )
    })
    app.decorate('authenticate', async (request: FastifyRequest) => {
      if (!request.caller) throw notAuthenticated()
    })
  },
  { name: 'authentication', dependencies: ['app-context'] },
)
