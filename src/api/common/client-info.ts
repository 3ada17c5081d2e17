import type { FastifyRequest } from 'fastify'

import type { ClientInfo } from '../../shared/client-info.js'

/** OWASP device cookie: lets a browser that logged in before past the account lockout (set by the auth slice's token replies). */
export const DEVICE_COOKIE = 'device'

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
