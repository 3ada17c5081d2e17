import type { FastifyRequest } from 'fastify'

import { DEVICE_COOKIE } from '../../features/auth/index.js'
import type { ClientInfo } from '../../features/security-events/index.js'

const DEVICE_IN_COOKIES = new RegExp(`(?:^|;\\s*)${DEVICE_COOKIE}=([^;]+)`)

/** Where a request comes from, for sessions and the security event log, with the browser's device cookie when it sent one. */
export function clientOf(request: FastifyRequest): ClientInfo {
  const cookies = request.headers.cookie
  const deviceToken = cookies === undefined ? undefined : DEVICE_IN_COOKIES.exec(cookies)?.[1]
  const acceptLanguage = request.headers['accept-language']
  // Who acts: the signed-in caller, or the superuser behind a support impersonation of them.
  const actorId = request.caller?.token?.actor?.superuserId ?? request.caller?.user.id
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    ...(deviceToken === undefined ? {} : { deviceToken }),
    ...(acceptLanguage === undefined ? {} : { acceptLanguage }),
    ...(actorId === undefined ? {} : { actorId }),
  }
}
