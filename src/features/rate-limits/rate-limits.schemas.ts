import { Type } from 'typebox'

import { RecordId } from '../../shared/record-id.js'

const Route = Type.String({
  minLength: 1,
  maxLength: 300,
  description: 'A route template with its method ("GET /api/v2/users/{user_id}"), a prefix ("* /api/v2/posts/*") or "*"',
  examples: ['GET /api/v2/users/{user_id}'],
})
const Limit = Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Requests allowed in each period' })
const Period = Type.Integer({ minimum: 1, maximum: 2_678_400, description: 'The window, in seconds' })

/** A tier's id, or "none" for the rules of logged-in callers without a tier. */
export const RuleTierParams = Type.Object({ tier_id: Type.Union([RecordId, Type.Literal('none')]) })
export const RuleParams = Type.Object({ ...RuleTierParams.properties, rate_limit_id: RecordId })

export const RateLimitRuleRead = Type.Object(
  {
    id: Type.Integer(),
    tier_id: Type.Union([Type.Integer(), Type.Null()]),
    route: Type.String(),
    limit: Type.Integer(),
    period_seconds: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'RateLimitRuleRead' },
)

export const RateLimitRuleCreate = Type.Object({ route: Route, limit: Limit, period_seconds: Period }, { additionalProperties: false, title: 'RateLimitRuleCreate' })

export const RateLimitRuleUpdate = Type.Object(
  { route: Type.Optional(Route), limit: Type.Optional(Limit), period_seconds: Type.Optional(Period) },
  { additionalProperties: false, minProperties: 1, title: 'RateLimitRuleUpdate' },
)
