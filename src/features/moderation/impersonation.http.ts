// What a support impersonation token may do, decided from the route table: every route that
// changes something declares its rule (protectedRoute's `impersonation`, checked at start in
// src/app.ts). `refused` routes answer 403 `impersonation_forbidden`; a read-only token gets 403
// `impersonation_read_only` on every method but GET and HEAD, unless the route ends the
// impersonation (logging out with the token marks it ended). Every request made with such a token
// is recorded with both ids after its answer.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'

import { setResponseHeaders } from '../../plugins/response-headers.js'
import { routeTemplateOf } from '../../plugins/route-template.js'
import { impersonationForbidden, impersonationReadOnly } from '../../shared/errors.js'

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

function refusalOf(request: FastifyRequest) {
  const actor = request.caller?.token?.actor
  if (!actor) return undefined
  const rule = request.routeOptions.config.impersonation
  if (rule === 'refused') return impersonationForbidden()
  if (actor.mode === 'read_only' && !READS.has(request.method) && rule !== 'ends') return impersonationReadOnly()
  return undefined
}

export default fp(
  async (app) => {
    const { impersonations } = app.services
    // Callback hooks: a request made without an impersonation (nearly all) goes on at once, without a promise.
    app.addHook('onRequest', function impersonationRules(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const refusal = refusalOf(request)
      if (!refusal) return done()
      setResponseHeaders(request, reply)
      done(refusal)
    })
    app.addHook('onResponse', function recordImpersonatedRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const token = request.caller?.token
      if (!token?.actor) return done()
      const route = request.routeOptions.url === undefined ? '(no route)' : routeTemplateOf(request.routeOptions.url)
      const recorded = impersonations.recordRequest(token.sessionId, { method: request.method, route, status: reply.statusCode })
      // A logout with the token ended its session: the impersonation is marked ended too.
      const ended = request.routeOptions.config.impersonation === 'ends' && reply.statusCode < 400 ? impersonations.ended(token.sessionId) : undefined
      Promise.all([recorded, ended])
        .catch((error: unknown) => request.log.error({ err: error }, 'recording a request made in an impersonation failed'))
        .finally(() => done())
    })
  },
  { name: 'impersonation-rules', dependencies: ['authentication'] },
)
