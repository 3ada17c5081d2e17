// Every request to a route counts against a limit (src/features/rate-limits): anonymous callers
// per client address, logged-in callers and API keys per user with their tier's rules. One hook,
// added first to every route as it is registered, so it knows its route template without asking
// the request for it ("/api/v2/users/{user_id}": every id shares one budget). The caller was
// resolved before (src/plugins/authentication.ts), and every answer carries
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (IETF draft). With REQUEST_LIMITS=off it
// only learns the routes, which rules must name.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'

import { responseHeadersHook, setResponseHeaders } from '../../plugins/response-headers.js'
import { routeTemplateOf } from '../../plugins/route-template.js'
import { rateLimited } from '../../shared/errors.js'
import { limitIdentity } from '../users/index.js'
import type { LimitedRequest } from './rate-limits.service.js'
import type { LimitDecision } from './shared-limiter.js'

/** Probes for load balancers and orchestrators are never limited. */
const EXEMPT = new Set(['/health', '/ready'])

export default fp(
  async (app) => {
    const { rateLimits } = app.services
    // Every route the service answers, so a rate-limit rule naming none is refused.
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) rateLimits.routes.add(method, routeTemplateOf(route.url))
    })
    if (!app.config.rateLimits.enabled) return
    await rateLimits.start()

    const limited = (request: FastifyRequest, template: string): LimitedRequest => {
      const user = request.caller?.user
      return {
        user: user ? limitIdentity(user) : null,
        tierId: user?.tierId ?? null,
        address: request.ip,
        method: request.method,
        template,
      }
    }
    // One header at a time: reply.headers() would take a fresh object and the array of its keys.
    const answer = (reply: FastifyReply, decision: LimitDecision, done: HookHandlerDoneFunction) => {
      reply.header('ratelimit-limit', decision.limit).header('ratelimit-remaining', decision.remaining).header('ratelimit-reset', decision.resetSeconds)
      done(decision.allowed ? undefined : rateLimited(decision.resetSeconds))
    }
    // A callback hook, not an async one: most requests are decided at once, without a promise.
    const limitFor = (template: string) =>
      function countRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
        // The response headers' plugin leaves them to this hook: one hook per route, not two.
        setResponseHeaders(request, reply)
        const decision = request.caller === null ? rateLimits.checkAnonymousLocally(request.ip) : undefined
        if (decision) return answer(reply, decision, done)
        rateLimits.check(limited(request, template)).then((result) => answer(reply, result, done), done)
      }

    app.addHook('onRoute', (route) => {
      const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
      route.onRequest = [EXEMPT.has(route.url) ? responseHeadersHook : limitFor(routeTemplateOf(route.url)), ...existing]
    })
  },
  { name: 'request-limits', dependencies: ['app-context', 'authentication'] },
)
