// Every request to a route counts against a limit (src/modules/rate-limits): anonymous callers
// per client address, logged-in callers and API keys per user with their tier's rules. One hook,
// added first to every route as it is registered, so it knows its route template without asking
// the request for it ("/api/v2/users/{user_id}": every id shares one budget). A caller's
// credentials are resolved here once (routes reuse the result), and every answer carries
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (IETF draft).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { LimitedRequest } from '../modules/rate-limits/rate-limits.service.js'
import type { LimitDecision } from '../modules/rate-limits/shared-limiter.js'
import fp from 'fastify-plugin'
import { templateOf } from '../modules/rate-limits/rule.js'
import { DomainError } from '../shared/errors.js'
import { responseHeadersHook, setResponseHeaders } from './response-headers.js'

/** Probes for load balancers and orchestrators are never limited. */
const EXEMPT = new Set(['/health', '/ready'])

export default fp(
  async (app) => {
    const { rateLimits } = app.services
    await rateLimits.start()
    app.addHook('onClose', async () => rateLimits.stop())

    const limited = (request: FastifyRequest, template: string): LimitedRequest => {
      const user = request.caller?.user
      return {
        // Ids alone repeat across databases that share one Redis; the creation time sets them apart.
        user: user ? `${user.id}@${user.createdAt}` : null,
        tierId: user?.tierId ?? null,
        address: request.ip,
        method: request.method,
        template,
      }
    }
    // One header at a time: reply.headers() would take a fresh object and the array of its keys.
    const answer = (reply: FastifyReply, decision: LimitDecision, done: HookHandlerDoneFunction) => {
      reply.header('ratelimit-limit', decision.limit).header('ratelimit-remaining', decision.remaining).header('ratelimit-reset', decision.resetSeconds)
      done(decision.allowed ? undefined : new DomainError('rate_limited', 'Too many requests', decision.resetSeconds))
    }
    const counted = async (request: FastifyRequest, template: string): Promise<LimitDecision> => {
      await app.identify(request)
      return rateLimits.check(limited(request, template))
    }

    // A callback hook, not an async one: most requests are decided at once, without a promise.
    const limitFor = (template: string) =>
      function countRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
        // The response headers' plugin leaves them to this hook: one hook per route, not two.
        setResponseHeaders(request, reply)
        const { headers } = request
        const anonymous = headers.authorization === undefined && headers['x-api-key'] === undefined
        const decision = anonymous ? rateLimits.checkAnonymousLocally(request.ip) : undefined
        if (decision) return answer(reply, decision, done)
        counted(request, template).then((result) => answer(reply, result, done), done)
      }

    app.addHook('onRoute', (route) => {
      const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
      route.onRequest = [EXEMPT.has(route.url) ? responseHeadersHook : limitFor(templateOf(route.url)), ...existing]
    })
  },
  { name: 'request-limits', dependencies: ['app-context', 'authentication'] },
)
