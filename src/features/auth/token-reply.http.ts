// How an answer hands a browser its session: the token pair in the body, the refresh token as an
// HttpOnly cookie (COOKIE_SAMESITE, COOKIE_SECURE), and the device cookie that lets a browser
// which logged in before past the account lockout. Login and the v2 sign-up answer the same way.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

import { DEVICE_COOKIE } from '../../api/common/client-info.js'
import { refuseCrossSite } from '../../api/common/cross-site.js'
import { corsAllows } from '../../plugins/cors.js'
import type { BrowserSession, TokenPair } from './auth.service.js'

export const REFRESH_COOKIE = 'refresh_token'

export function tokenReplies(app: FastifyInstance) {
  const { cookieSecure, cookieSameSite } = app.config
  const refreshCookie = { httpOnly: true, sameSite: cookieSameSite, secure: cookieSecure, path: '/' } as const
  // Strict unless the frontend is on another site, where a strict cookie would never be sent.
  const deviceSameSite = cookieSameSite === 'none' ? 'none' : 'strict'
  const setDeviceCookie = (reply: FastifyReply, device: BrowserSession['device']) => {
    reply.setCookie(DEVICE_COOKIE, device.token, { httpOnly: true, sameSite: deviceSameSite, secure: cookieSecure, path: '/', expires: device.expiresAt })
  }
  /** The token pair as the body, its refresh token also as the cookie. */
  const sendTokens = (reply: FastifyReply, pair: TokenPair) => {
    reply.setCookie(REFRESH_COOKIE, pair.refreshToken, { ...refreshCookie, expires: pair.refreshExpiresAt })
    reply.header('cache-control', 'no-store')
    return {
      access_token: pair.accessToken,
      token_type: 'bearer' as const,
      expires_in: pair.accessExpiresIn,
      refresh_token: pair.refreshToken,
    }
  }
  return {
    sendTokens,
    /** A new browser session: the device cookie, then the token pair as sendTokens answers it. */
    sendSession(reply: FastifyReply, session: BrowserSession) {
      setDeviceCookie(reply, session.device)
      return sendTokens(reply, session.pair)
    },
    clearRefreshCookie(reply: FastifyReply) {
      reply.clearCookie(REFRESH_COOKIE, refreshCookie)
    },
  }
}

/**
 * An onRequest hook for answers that log a browser in: refused when a page of another site sent
 * it (login CSRF), unless CORS_ORIGINS lists that page's origin. The service's own pages are
 * PUBLIC_URL's origin. CORS_ORIGINS=* lists none: any page could then log a visitor in.
 */
export function refuseCrossSiteLogins(app: FastifyInstance): (request: FastifyRequest) => Promise<void> {
  const publicOrigin = new URL(app.config.mail.publicUrl).origin
  const { corsOrigins } = app.config
  const listed = corsOrigins.any ? () => false : corsAllows(corsOrigins)
  return refuseCrossSite((origin) => origin === publicOrigin || listed(origin))
}
