// Applying limits made with app.createRateLimit() inside a route: 429 with Retry-After when one
// is exceeded; 503 when the counters' store (database or Redis) is away, since counting nothing
// would leave the flow unlimited (these limits fail closed).
import type { FastifyRequest } from 'fastify'
import { DomainError, serviceUnavailable } from '../../shared/errors.js'

type RateLimitCheck = (request: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttlInSeconds?: number }>

export async function enforceRateLimits(request: FastifyRequest, limits: RateLimitCheck[]): Promise<void> {
  for (const limit of limits) {
    let result: Awaited<ReturnType<RateLimitCheck>>
    try {
      result = await limit(request)
    } catch {
      throw serviceUnavailable()
    }
    if (!result.isAllowed && result.isExceeded) {
      throw new DomainError('rate_limited', 'Too many requests', Math.max(1, result.ttlInSeconds ?? 1))
    }
  }
}
