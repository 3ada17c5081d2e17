// Login, token refresh and logout: the same in every version, mounted under each version's prefix.
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse, signInRefusal } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { notAuthenticated } from '../../shared/errors.js'
import { LoginRequest, RefreshRequest, TokenResponse } from './auth.schemas.js'
import { REFRESH_COOKIE, refuseCrossSiteLogins, tokenReplies } from './token-reply.http.js'

const tags = ['login']

const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { auth, passwordScreen } = app.services
  const { sendTokens, sendSession, clearRefreshCookie } = tokenReplies(app)

  // Form bodies and cookies are only understood here; every other route speaks JSON.
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  await app.register(cookie)

  // A refresh or logout may come with no body at all (the cookie carries the token).
  const emptyBodyIsAnObject = async (request: FastifyRequest) => {
    request.body ??= {}
  }

  const sameSiteOnly = refuseCrossSiteLogins(app)

  app.post(
    '/login',
    {
      config: { door: 'login', accountField: 'username' },
      onRequest: sameSiteOnly,
      schema: {
        tags,
        summary: 'Log in with a username or email and a password',
        description:
          'OAuth2 password form (application/x-www-form-urlencoded) or JSON. Returns an access token and a ' +
          'refresh token; the refresh token is also set as an HttpOnly cookie. Rate limited per address and per account. ' +
          'An account with a second factor answers 401 `mfa_required` with an `mfa_token` instead: finish at POST /api/v2/login/mfa.',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: LoginRequest,
        response: { 200: TokenResponse, ...errorResponses(403, 422, 429), ...signInRefusal },
      },
    },
    async (request, reply) => {
      // Limited per address and account (auth's LoginThrottle), the same in every version.
      const tokens = sendSession(reply, await auth.login(request.body.username, request.body.password, clientOf(request)))
      // The login works; the answer says when its password is in known breaches, so a frontend can ask for another.
      return (await passwordScreen.isBreached(request.body.password)) ? { ...tokens, password_breached: true } : tokens
    },
  )

  app.post(
    '/refresh',
    {
      config: { door: 'exempt' },
      preValidation: emptyBodyIsAnObject,
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new token pair',
        description: 'The refresh token comes from the cookie or the body. The old one stops working; reusing it revokes the session.',
        body: RefreshRequest,
        response: { 200: TokenResponse, ...errorResponses(401, 403, 422) },
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
        { apiKeys: false, wayIn: 'none', impersonation: 'ends' },
      ),
      preValidation: emptyBodyIsAnObject,
    },
    async (request, reply) => {
      await auth.logout(tokenCallerOf(request), request.body.refresh_token ?? request.cookies[REFRESH_COOKIE], clientOf(request))
      clearRefreshCookie(reply)
      return { message: 'Logged out successfully' }
    },
  )
}

export default authRoutes
