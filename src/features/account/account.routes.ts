// The account lifecycle, the same in every version: email verification, password reset and
// change, sessions, and the security event log (SECURITY.md, API2).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { callerOf, tokenCallerOf } from '../../plugins/authentication.js'
import { SessionIdParams, SessionRead, toSessionRead } from '../auth/index.js'
import { OwnSecurityEventQuery, SecurityEventQuery, SecurityEventRead, toSecurityEventRead } from '../security-events/index.js'
import { PasswordChange, PasswordChanged, PasswordResetConfirmation, PasswordResetRequest, TokenConfirmation } from './account.schemas.js'

const tags = ['account']
/** The same answer whether or not the account exists, so the endpoint tells nobody which emails are registered. */
export const PASSWORD_RESET_REQUESTED = 'If an account uses that email, a link to reset its password is on its way'

const SecurityEventPage = PageEnvelopeSchema(SecurityEventRead, 'SecurityEventPage')

export interface AccountRoutesOptions {
  /**
   * The reset confirmation of this version: v1's `{token, new_password}`, or (v2) one that also
   * takes the ways in to keep and answers what ended (src/features/recovery/recovery.v2.routes.ts).
   */
  resetConfirmation: 'plain' | 'own'
}

const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesOptions> = async (app, options) => {
  const { account, auth, securityEvents } = app.services

  app.post(
    '/email-verification',
    protectedRoute(app, {
      tags,
      summary: "Mail the caller a link that verifies their email address",
      description: 'Answers 202 when a link was queued, 200 (and no mail) when the address is verified already.',
      response: { 200: MessageResponse, 202: MessageResponse, ...errorResponses(403) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'allowed' }),
    async (request, reply) => {
      const sent = await account.requestEmailVerification(tokenCallerOf(request).user)
      return sent ? reply.code(202).send({ message: 'Verification email sent' }) : { message: 'Email already verified' }
    },
  )

  app.post(
    '/email-verification/confirm',
    {
      config: { door: 'exempt' },
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
    '/email-change/undo',
    {
      config: { door: 'exempt' },
      schema: {
        tags,
        summary: 'Undo an email change with the token mailed to the previous address',
        description:
          'The previous address comes back, verified; every session and API key of the user ends, and every reset or verification link mailed since stops working. The link is valid 7 days.',
        body: TokenConfirmation,
        response: { 200: MessageResponse, ...errorResponses(400, 409, 422) },
      },
    },
    async (request) => {
      await account.undoEmailChange(request.body.token, clientOf(request))
      return { message: 'Email change undone' }
    },
  )

  app.post(
    '/password-reset',
    {
      config: { door: 'password-reset', accountField: 'email' },
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

  if (options.resetConfirmation === 'plain') {
    app.post(
      '/password-reset/confirm',
      {
        config: { door: 'exempt' },
        schema: {
          tags,
          summary: 'Set a new password with the token from the mail; signs out every session',
          description: 'Every session and API key ends, and every passkey and linked identity (whoever had the account may have added them): version 2 lets the owner choose which to keep.',
          body: PasswordResetConfirmation,
          response: { 200: MessageResponse, ...errorResponses(400, 422) },
        },
      },
      async (request) => {
        await account.confirmPasswordReset(request.body.token, request.body.new_password, clientOf(request))
        return { message: 'Password reset' }
      },
    )
  }

  app.post(
    '/users/me/password',
    protectedRoute(app, {
      tags,
      summary: "Change the caller's password; signs out every other session",
      description: 'Mailed reset and verification links stop working. API keys keep working unless `revoke_api_keys` is true; the answer says how many still do. Each try counts against the account\'s login limit.',
      body: PasswordChange,
      response: { 200: PasswordChanged, ...errorResponses(400, 403, 422, 429) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      const { current_password: current, new_password: next, revoke_api_keys: revokeApiKeys = false } = request.body
      const changed = await account.changePassword(tokenCallerOf(request), current, next, clientOf(request), { revokeApiKeys })
      return { message: 'Password changed', revoked_api_keys: changed.revokedApiKeys, live_api_keys: changed.liveApiKeys }
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
    }, { apiKeys: false, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      await auth.revokeOwnSession(tokenCallerOf(request), request.params.session_id, clientOf(request))
      return { message: 'Session revoked' }
    },
  )

  app.delete(
    '/sessions',
    protectedRoute(app, { tags, summary: "End every session of the caller's but this one", response: { 200: MessageResponse, ...errorResponses(403) } }, { apiKeys: false, wayIn: 'none', impersonation: 'refused' }),
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
    }, superusersOnly),
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
