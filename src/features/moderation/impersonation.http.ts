// What a support impersonation token may do, decided from the route table: every route that
// changes something declares its rule (protectedRoute's `impersonation`, checked at start in
// src/app.ts). `refused` routes answer 403 `impersonation_forbidden`; a read-only token gets 403
// `impersonation_read_only` on every method but GET and HEAD, unless the route ends the
// impersonation. Every request made with such a token is recorded with both ids after its answer.
import type { FastifyReply, FastifyRequest } from 'fastify'
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
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const refusal = refusalOf(request)
      if (!refusal) return
      setResponseHeaders(request, reply)
      throw refusal
    })
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      const token = request.caller?.token
      if (!token?.actor) return
      const route = request.routeOptions.url === undefined ? '(no route)' : routeTemplateOf(request.routeOptions.url)
      await impersonations.recordRequest(token.sessionId, { method: request.method, route, status: reply.statusCode }).catch((error: unknown) => {
        request.log.error({ err: error }, 'recording a request made in an impersonation failed')
      })
    })
  },
  { name: 'impersonation-rules', dependencies: ['authentication'] },
)
