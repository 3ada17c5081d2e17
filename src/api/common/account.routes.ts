// The account lifecycle, the same in every version: email verification, password reset and
// change, sessions, and the security event log (SECURITY.md, API2).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { PasswordChange, PasswordResetConfirmation, PasswordResetRequest, TokenConfirmation } from '../../modules/account/account.schemas.js'
import type { Session } from '../../modules/auth/auth.service.js'
import { SessionIdParams, SessionRead } from '../../modules/auth/auth.schemas.js'
import type { SecurityEvent } from '../../modules/security-events/security-event.js'
import { OwnSecurityEventQuery, SecurityEventQuery, SecurityEventRead } from '../../modules/security-events/security-events.schemas.js'
import { callerOf, tokenCallerOf } from '../../plugins/authentication.js'
import { hashedKey } from '../../shared/hashed-key.js'
import { clientOf } from './client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from './page-envelope.js'
import { protectedRoute } from './protected-route.js'
import { enforceRateLimits } from './rate-limits.js'
import { MessageResponse, errorResponses } from './responses.js'

const tags = ['account']
const HOUR_MS = 60 * 60 * 1000
/** The same answer whether or not the account exists, so the endpoint tells nobody which emails are registered. */
export const PASSWORD_RESET_REQUESTED = 'If an account uses that email, a link to reset its password is on its way'

const SecurityEventPage = PageEnvelopeSchema(SecurityEventRead, 'SecurityEventPage')

export const toSessionRead = (session: Session) => ({
  id: session.id,
  created_at: session.createdAt,
  last_used_at: session.lastUsedAt,
  user_agent: session.userAgent,
  ip: session.ip,
  current: session.current,
})

const toSecurityEventRead = (event: SecurityEvent) => ({
  id: event.id,
  user_id: event.userId,
  type: event.type,
  ip: event.ip,
  user_agent: event.userAgent,
  created_at: event.createdAt,
})

const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { account, auth, securityEvents } = app.services
  const { passwordResetRateLimit } = app.config

  const resetLimit = (key: (request: FastifyRequest) => string) =>
    app.createRateLimit({ max: passwordResetRateLimit, timeWindow: HOUR_MS, keyGenerator: key })
  const resetByAddress = resetLimit((request) => `password-reset-address:${request.ip}`)
  const resetByEmail = resetLimit((request) => {
    const email = (request.body as { email: string }).email.trim().toLowerCase()
    return `password-reset-email:${hashedKey(email)}`
  })

  app.post(
    '/email-verification',
    protectedRoute(app, {
      tags,
      summary: "Mail the caller a link that verifies their email address",
      description: 'Answers 202 when a link was queued, 200 (and no mail) when the address is verified already.',
      response: { 200: MessageResponse, 202: MessageResponse, ...errorResponses(403) },
    }, { apiKeys: false }),
    async (request, reply) => {
      const sent = await account.requestEmailVerification(tokenCallerOf(request).user)
      return sent ? reply.code(202).send({ message: 'Verification email sent' }) : { message: 'Email already verified' }
    },
  )

  app.post(
    '/email-verification/confirm',
    {
      schema: {
        tags,
        summary: 'Verify an email address with the token from the mail',
        body: TokenConfirmation,
        response: { 200: MessageResponse, ...errorResponses(400, 422) },
      },
    },
    async (request) => {
      await account.confirmEmail(request.body.token, clientOf(request))
      return { message: 'Email verified' }
    },
  )

  app.post(
    '/password-reset',
    {
      preHandler: (request) => enforceRateLimits(request, [resetByAddress, resetByEmail]),
      schema: {
        tags,
        summary: 'Mail a password-reset link, if an account uses that email',
        description: 'Always 202 with the same body. Limited per client address and per email.',
        body: PasswordResetRequest,
        response: { 202: MessageResponse, ...errorResponses(422, 429) },
      },
    },
    async (request, reply) => {
      await account.requestPasswordReset(request.body.email, clientOf(request))
      return reply.code(202).send({ message: PASSWORD_RESET_REQUESTED })
    },
  )

  app.post(
    '/password-reset/confirm',
    {
      schema: {
        tags,
        summary: 'Set a new password with the token from the mail; signs out every session',
        body: PasswordResetConfirmation,
        response: { 200: MessageResponse, ...errorResponses(400, 422) },
      },
    },
    async (request) => {
      await account.confirmPasswordReset(request.body.token, request.body.new_password, clientOf(request))
      return { message: 'Password reset' }
    },
  )

  app.post(
    '/users/me/password',
    protectedRoute(app, {
      tags,
      summary: "Change the caller's password; signs out every other session",
      body: PasswordChange,
      response: { 200: MessageResponse, ...errorResponses(400, 403, 422) },
    }, { apiKeys: false }),
    async (request) => {
      const { current_password: current, new_password: next } = request.body
      await account.changePassword(tokenCallerOf(request), current, next, clientOf(request))
      return { message: 'Password changed' }
    },
  )

  app.get(
    '/sessions',
    protectedRoute(app, { tags, summary: "The caller's live sessions, newest first", response: { 200: Type.Array(SessionRead), ...errorResponses(403) } }, { apiKeys: false }),
    async (request) => (await auth.sessions(tokenCallerOf(request))).map(toSessionRead),
  )

  app.delete(
    '/sessions/:session_id',
    protectedRoute(app, {
      tags,
      summary: "End one of the caller's sessions",
      params: SessionIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { apiKeys: false }),
    async (request) => {
      await auth.revokeOwnSession(tokenCallerOf(request), request.params.session_id, clientOf(request))
      return { message: 'Session revoked' }
    },
  )

  app.delete(
    '/sessions',
    protectedRoute(app, { tags, summary: "End every session of the caller's but this one", response: { 200: MessageResponse, ...errorResponses(403) } }, { apiKeys: false }),
    async (request) => {
      const caller = tokenCallerOf(request)
      const count = await auth.revokeSessionsOf(caller.user.id, clientOf(request), caller.token.sessionId)
      return { message: `Revoked ${count} other session${count === 1 ? '' : 's'}` }
    },
  )

  app.get(
    '/security-events',
    protectedRoute(app, {
      tags,
      summary: 'The security event log, newest first (superuser)',
      querystring: SecurityEventQuery,
      response: { 200: SecurityEventPage, ...errorResponses(403, 422) },
    }),
    async (request) => {
      const { page, limit, type, user_id: userId } = request.query
      const events = await securityEvents.listAll(callerOf(request).user, { type, userId }, { page, limit, countTotal: true })
      return toPageEnvelope(events, { page, limit }, toSecurityEventRead)
    },
  )

  app.get(
    '/users/me/security-events',
    protectedRoute(app, {
      tags,
      summary: "The caller's own security events, newest first",
      querystring: OwnSecurityEventQuery,
      response: { 200: SecurityEventPage, ...errorResponses(422) },
    }),
    async (request) => {
      const { page, limit, type } = request.query
      const events = await securityEvents.listOwn(callerOf(request).user, { type }, { page, limit, countTotal: true })
      return toPageEnvelope(events, { page, limit }, toSecurityEventRead)
    },
  )
}

export default accountRoutes
