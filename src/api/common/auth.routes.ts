// Login, token refresh and logout: the same in every version, mounted under each version's prefix.
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { LoginRequest, RefreshRequest, TokenResponse } from '../../modules/auth/auth.schemas.js'
import type { LoginLimitKey, TokenPair } from '../../modules/auth/auth.service.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { notAuthenticated } from '../../shared/errors.js'
import { MessageResponse, errorResponses } from './responses.js'
import { clientOf } from './client-info.js'
import { protectedRoute } from './protected-route.js'
import { enforceRateLimits } from './rate-limits.js'

const tags = ['login']
const REFRESH_COOKIE = 'refresh_token'
/** OWASP device cookie: lets a browser that logged in before past the account lockout. */
const DEVICE_COOKIE = 'device'
const LOGIN_WINDOW_MS = 60_000

declare module 'fastify' {
  interface FastifyRequest {
    loginLimitKey: LoginLimitKey | null
  }
}

const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { auth } = app.services
  const { cookieSecure, loginRateLimit } = app.config

  // Form bodies and cookies are only understood here; every other route speaks JSON.
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  await app.register(cookie)

  // Keys are version-neutral, so v1 and v2 logins count against the same limits.
  app.decorateRequest('loginLimitKey', null)
  const loginLimit = (key: (request: FastifyRequest) => string) =>
    app.createRateLimit({ max: loginRateLimit, timeWindow: LOGIN_WINDOW_MS, keyGenerator: key })
  const limitByAddress = loginLimit((request) => `login-address:${request.ip}`)
  const limitByAccount = loginLimit((request) => `login-account:${Object.values(request.loginLimitKey ?? {})[0]}`)
  const limitByDevice = loginLimit((request) => `login-device:${Object.values(request.loginLimitKey ?? {})[0]}`)

  async function enforceLoginLimits(request: FastifyRequest): Promise<void> {
    const { username } = request.body as { username: string }
    const key = await auth.loginLimitKey(username, request.cookies[DEVICE_COOKIE])
    request.loginLimitKey = key
    // A known device has its own budget; only untrusted clients meet the address and account limits.
    await enforceRateLimits(request, 'device' in key ? [limitByDevice] : [limitByAddress, limitByAccount])
  }

  function sendTokens(reply: FastifyReply, pair: TokenPair) {
    reply.setCookie(REFRESH_COOKIE, pair.refresh_token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: cookieSecure,
      path: '/',
      expires: pair.refresh_expires_at,
    })
    reply.header('cache-control', 'no-store')
    return {
      access_token: pair.access_token,
      token_type: pair.token_type,
      expires_in: pair.expires_in,
      refresh_token: pair.refresh_token,
    }
  }

  // A refresh or logout may come with no body at all (the cookie carries the token).
  const emptyBodyIsAnObject = async (request: FastifyRequest) => {
    request.body ??= {}
  }

  app.post(
    '/login',
    {
      preHandler: enforceLoginLimits,
      schema: {
        tags,
        summary: 'Log in with a username or email and a password',
        description:
          'OAuth2 password form (application/x-www-form-urlencoded) or JSON. Returns an access token and a ' +
          'refresh token; the refresh token is also set as an HttpOnly cookie. Rate limited per address and per account.',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: LoginRequest,
        response: { 200: TokenResponse, ...errorResponses(401, 422, 429) },
      },
    },
    async (request, reply) => {
      const pair = await auth.login(request.body.username, request.body.password, clientOf(request))
      const device = await auth.deviceToken(pair.userId)
      reply.setCookie(DEVICE_COOKIE, device.token, { httpOnly: true, sameSite: 'strict', secure: cookieSecure, path: '/', expires: device.expiresAt })
      return sendTokens(reply, pair)
    },
  )

  app.post(
    '/refresh',
    {
      preValidation: emptyBodyIsAnObject,
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new token pair',
        description: 'The refresh token comes from the cookie or the body. The old one stops working; reusing it revokes the session.',
        body: RefreshRequest,
        response: { 200: TokenResponse, ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const token = request.body.refresh_token ?? request.cookies[REFRESH_COOKIE]
      if (!token) throw notAuthenticated()
      return sendTokens(reply, await auth.refresh(token, clientOf(request)))
    },
  )

  app.post(
    '/logout',
    {
      ...protectedRoute(
        app,
        { tags, summary: 'Revoke the access token and its session', body: RefreshRequest, response: { 200: MessageResponse, ...errorResponses(403, 422) } },
        { apiKeys: false },
      ),
      preValidation: emptyBodyIsAnObject,
    },
    async (request, reply) => {
      await auth.logout(tokenCallerOf(request), request.body.refresh_token ?? request.cookies[REFRESH_COOKIE], clientOf(request))
      reply.clearCookie(REFRESH_COOKIE, { path: '/' })
      return { message: 'Logged out successfully' }
    },
  )
}

export default authRoutes
