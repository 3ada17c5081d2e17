// Sign-in by email (EMAIL_LOGIN, on by default): POST /login/email mails a link and a code to a
// live account, answering alike for every address; POST /login/email/confirm trades either for
// the token pair and the refresh cookie, as a password login answers.
import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses, MessageResponse, signInRefusal } from '../../api/common/responses.js'
import { refuseCrossSiteLogins, tokenReplies, TokenResponse } from '../auth/index.js'
import { EmailLoginConfirmation, EmailLoginRequest } from './email-login.v2.schemas.js'

const tags = ['login']
/** The same answer for every address, so the endpoint tells nobody which emails are registered. */
export const EMAIL_LOGIN_REQUESTED = 'If an account uses that email, a sign-in link and code are on their way'

const emailLoginRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { emailLogin } = app.services
  const { sendSession } = tokenReplies(app)
  await app.register(cookie)

  app.post(
    '/login/email',
    {
      config: { door: 'email-login', accountField: 'email' },
      schema: {
        tags,
        summary: 'Mail a sign-in link and code, if a live account uses that email',
        description:
          'Always 202 with the same body; it never creates an account. The link and the 6-digit code work once and expire in 15 minutes. ' +
          'Limited per client address and per email (EMAIL_LOGIN_RATE_LIMIT an hour). A `redirect_to` off AUTH_REDIRECT_ORIGINS: 400 `invalid_redirect`.',
        body: EmailLoginRequest,
        response: { 202: MessageResponse, ...errorResponses(400, 422, 429) },
      },
    },
    async (request, reply) => {
      await emailLogin.request(request.body.email, request.body.redirect_to, clientOf(request))
      return reply.code(202).send({ message: EMAIL_LOGIN_REQUESTED })
    },
  )

  app.post(
    '/login/email/confirm',
    {
      config: { door: 'exempt' },
      // Logging a browser in from another site's page is login CSRF: the same check as POST /login.
      onRequest: refuseCrossSiteLogins(app),
      schema: {
        tags,
        summary: 'Sign in with the token from the mailed link, or the email and the code',
        description:
          'Answers the token pair and sets the refresh cookie, as POST /login does (401 `mfa_required` when the account has a second factor); the email counts as verified. ' +
          'Five codes tried against one request, right or wrong, spend it (link included): ask for a new one.',
        body: EmailLoginConfirmation,
        response: { 200: TokenResponse, ...errorResponses(400, 403, 422), ...signInRefusal },
      },
    },
    async (request, reply) => {
      const { body } = request
      const client = clientOf(request)
      const signedIn = 'token' in body ? await emailLogin.confirmToken(body.token, client) : await emailLogin.confirmCode(body.email, body.code, client)
      return sendSession(reply, signedIn)
    },
  )
}

export default emailLoginRoutes
