// Second factors in v2: the caller sets up, confirms and turns off a TOTP authenticator and makes
// new recovery codes; a sign-in that answered 401 mfa_required finishes at POST /login/mfa; a
// superuser sees and removes a user's second factors.
import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse, withNotice } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { refuseCrossSiteLogins, tokenReplies, TokenResponse } from '../auth/index.js'
import { MfaPasskeyOptionsRequest, WebauthnOptions } from '../passkeys/index.js'
import { toSecondFactorsRead } from './mfa.v2.mappers.js'
import { RecoveryCodesRead, SecondFactorLogin, SecondFactorsRead, TotpCodeBody, TotpOrRecoveryCodeBody, TotpSetupRead } from './mfa.v2.schemas.js'

const tags = ['second factors']
const ownOnly = { apiKeys: false }

const mfaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { secondFactors, auth } = app.services
  const { sendSession } = tokenReplies(app)
  await app.register(cookie)

  app.get(
    '/users/me/mfa',
    protectedRoute(app, { tags, summary: "The caller's second factors", response: { 200: SecondFactorsRead, ...errorResponses(403) } }, ownOnly),
    async (request) => toSecondFactorsRead(await secondFactors.status(tokenCallerOf(request).user.id)),
  )

  app.post(
    '/users/me/mfa/totp',
    protectedRoute(app, {
      tags,
      summary: 'Start setting up a TOTP authenticator',
      description: 'A new secret, pending until confirmed with a code from it; a new call replaces a pending one. 409 `mfa_already_enabled` when one is confirmed.',
      response: { 200: TotpSetupRead, ...errorResponses(403, 409) },
    }, { ...ownOnly, wayIn: 'adds' }),
    async (request) => {
      const setup = await secondFactors.startTotp(tokenCallerOf(request).user)
      return { secret: setup.secret, otpauth_url: setup.otpauthUrl, qr_code: setup.qrCode }
    },
  )

  app.post(
    '/users/me/mfa/totp/confirm',
    protectedRoute(app, {
      tags,
      summary: 'Confirm the pending authenticator with a code from it',
      description: 'Turns the second factor on and answers ten single-use recovery codes, shown this once; every other session of the caller ends, as after a password change. 400 `invalid_mfa_code` for a wrong or used code.',
      body: TotpCodeBody,
      response: { 200: RecoveryCodesRead, ...errorResponses(400, 403, 409, 422) },
    }, { ...ownOnly, wayIn: 'adds' }),
    async (request) => {
      const caller = tokenCallerOf(request)
      return { recovery_codes: await secondFactors.confirmTotp(caller.user, request.body.code, clientOf(request), caller.token.sessionId) }
    },
  )

  app.post(
    '/users/me/mfa/recovery-codes',
    protectedRoute(app, {
      tags,
      summary: 'Make a new set of recovery codes, for a current TOTP code',
      description: 'The old set stops working.',
      body: TotpCodeBody,
      response: { 200: RecoveryCodesRead, ...errorResponses(400, 403, 409, 422) },
    }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request) => ({ recovery_codes: await secondFactors.regenerateRecoveryCodes(tokenCallerOf(request).user, request.body.code, clientOf(request)) }),
  )

  app.delete(
    '/users/me/mfa/totp',
    protectedRoute(app, {
      tags,
      summary: 'Turn the TOTP authenticator off, for a current code or a recovery code',
      description: 'Its recovery codes go with it; sign-in then asks for no second factor.',
      body: TotpOrRecoveryCodeBody,
      response: { 200: MessageResponse, ...errorResponses(400, 403, 409, 422) },
    }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      const { user } = tokenCallerOf(request)
      await secondFactors.disableTotp(user, request.body.code, clientOf(request))
      // An organization that requires a second factor will refuse them now: they hear it here first.
      return { message: withNotice('Second factor turned off', await app.services.orgs.noticeAfterFactorRemoved(user.id)) }
    },
  )

  app.post(
    '/login/mfa',
    {
      config: { door: 'exempt' },
      // It finishes logging a browser in: the same login-CSRF check as POST /login.
      onRequest: refuseCrossSiteLogins(app),
      schema: {
        tags: ['login'],
        summary: 'Finish a sign-in with a second factor',
        description:
          'After a first factor answered 401 `mfa_required`: its `mfa_token` with a TOTP `code`, a `recovery_code` or a `passkey_response`. Answers as POST /login does. ' +
          'A wrong code: 401 `invalid_mfa_code`; five wrong codes, 5 minutes, or a success end the token (401 `invalid_mfa_token`). ' +
          'Attempts are limited per account an hour (MFA_RATE_LIMIT), and a browser that signed in to the account before has a budget of its own.',
        body: SecondFactorLogin,
        response: { 200: TokenResponse, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const { body } = request
      const proof = 'code' in body ? { code: body.code } : 'recovery_code' in body ? { recoveryCode: body.recovery_code } : { passkeyResponse: body.passkey_response }
      return sendSession(reply, await auth.completeSecondFactor(body.mfa_token, proof, clientOf(request)))
    },
  )

  app.post(
    '/login/mfa/passkey/options',
    {
      config: { door: 'exempt' },
      schema: {
        tags: ['login'],
        summary: 'Request options for proving the second factor of a sign-in with a passkey',
        description: "For the `mfa_token` of a 401 `mfa_required` whose `methods` include `passkey`: the account's passkeys, and a challenge bound to that token (single use, 5 minutes). Post the answer to POST /login/mfa as `passkey_response`.",
        body: MfaPasskeyOptionsRequest,
        response: { 200: WebauthnOptions, ...errorResponses(401, 409, 422) },
      },
    },
    async (request) => secondFactors.passkeyOptions(request.body.mfa_token),
  )

  app.get(
    '/admin/users/:user_id/mfa',
    protectedRoute(app, { tags: ['admin'], summary: "A user's second factors", params: UserIdParams, response: { 200: SecondFactorsRead, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => toSecondFactorsRead(await secondFactors.statusOf(tokenCallerOf(request).user, request.params.user_id)),
  )

  app.delete(
    '/admin/users/:user_id/mfa',
    protectedRoute(app, {
      tags: ['admin'],
      summary: "Remove a user's second factors and end their sessions",
      description: 'For a user who lost their authenticator and their recovery codes. They sign in with the first factor alone until they set one up again.',
      params: UserIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await auth.resetSecondFactorsOf(tokenCallerOf(request).user, request.params.user_id, clientOf(request))
      return { message: 'Second factors removed' }
    },
  )
}

export default mfaRoutes
