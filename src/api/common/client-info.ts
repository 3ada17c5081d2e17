import type { FastifyRequest } from 'fastify'

import type { ClientInfo } from '../../features/security-events/index.js'

/** Where a request comes from, for sessions and the security event log. */
export function clientOf(request: FastifyRequest): ClientInfo {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? null }
}
