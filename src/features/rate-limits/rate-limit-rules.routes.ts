// A tier's rate-limit rules, the same in every version (superuser). {tier_id} is a tier's id, or
// "none" for logged-in callers without a tier. Changes apply in every process within seconds.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { RateLimitRuleCreate, RateLimitRuleRead, RateLimitRuleUpdate, RuleParams, RuleTierParams } from './rate-limits.schemas.js'
import type { RateLimitRule } from './rule.js'

const tags = ['tiers']

const toRuleRead = (rule: RateLimitRule) => ({
  id: rule.id,
  tier_id: rule.tierId,
  route: rule.route,
  limit: rule.limit,
  period_seconds: rule.periodSeconds,
  created_at: rule.createdAt,
  updated_at: rule.updatedAt,
})

const tierOf = (param: number | 'none') => (param === 'none' ? null : param)

const rateLimitRulesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { rateLimits } = app.services

  app.get(
    '/:tier_id/rate-limits',
    protectedRoute(app, { tags, summary: "A tier's rate limits (superuser)", params: RuleTierParams, response: { 200: Type.Array(RateLimitRuleRead), ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => (await rateLimits.list(callerOf(request).user, tierOf(request.params.tier_id))).map(toRuleRead),
  )

  app.post(
    '/:tier_id/rate-limits',
    protectedRoute(app, {
      tags,
      summary: 'Add a rate limit to a tier (superuser)',
      params: RuleTierParams,
      body: RateLimitRuleCreate,
      response: { 201: RateLimitRuleRead, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => {
      const { route, limit, period_seconds: periodSeconds } = request.body
      const rule = await rateLimits.create(callerOf(request).user, tierOf(request.params.tier_id), { route, limit, periodSeconds })
      return reply.code(201).send(toRuleRead(rule))
    },
  )

  app.patch(
    '/:tier_id/rate-limits/:rate_limit_id',
    protectedRoute(app, {
      tags,
      summary: 'Change a rate limit (superuser)',
      params: RuleParams,
      body: RateLimitRuleUpdate,
      response: { 200: RateLimitRuleRead, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      const { route, limit, period_seconds: periodSeconds } = request.body
      const changes = { ...(route === undefined ? {} : { route }), ...(limit === undefined ? {} : { limit }), ...(periodSeconds === undefined ? {} : { periodSeconds }) }
      return toRuleRead(await rateLimits.update(callerOf(request).user, tierOf(request.params.tier_id), request.params.rate_limit_id, changes))
    },
  )

  app.delete(
    '/:tier_id/rate-limits/:rate_limit_id',
    protectedRoute(app, { tags, summary: 'Remove a rate limit (superuser)', params: RuleParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await rateLimits.delete(callerOf(request).user, tierOf(request.params.tier_id), request.params.rate_limit_id)
      return { message: 'Rate limit deleted' }
    },
  )
}

export default rateLimitRulesRoutes
