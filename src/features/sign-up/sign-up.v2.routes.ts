// POST /api/v2/signup: someone creates their own account (USER_SIGNUP=open, the default) and,
// with SIGNUP_LOGIN (the default), is logged in by the same answer: the token pair beside the
// new user, and the refresh cookie, as a login answers. POST /api/v2/users/ stays the
// specification's "a logged-in caller creates a user".
import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses } from '../../api/common/responses.js'
import { refuseCrossSiteLogins, tokenReplies, TokenResponse } from '../auth/index.js'
import { toUserReadV2, userReader, userShapesV2 } from '../users/index.js'
import { signUpRoute } from './sign-up.http.js'

const signupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { account } = app.services
  const { read: UserReadV2, create: UserCreateV2 } = userShapesV2(app.services.contentFields.shapes('users'))
  const SignUpRead = Type.Object(
    {
      ...UserReadV2.properties,
      tokens: Type.Optional(TokenResponse),
    },
    {
      title: 'SignUpRead',
      description: "The new user; `tokens`, their token pair (also set as the refresh cookie), when SIGNUP_LOGIN is on and the caller was not logged in",
    },
  )
  const { signupLogin } = app.config
  const { sendSession } = tokenReplies(app)
  await app.register(cookie)

  const route = signUpRoute(app, app.config.userSignup, {
    tags: ['users'],
    summary: 'Sign up: create your own account (and log in)',
    description:
      'Anyone may sign up unless USER_SIGNUP=authenticated. With SIGNUP_LOGIN (on by default) an anonymous caller is logged in at once: ' +
      'the answer carries `tokens` and sets the refresh cookie. Limited per client address (SIGNUP_RATE_LIMIT).',
    body: UserCreateV2,
    response: { 201: SignUpRead, ...errorResponses(403, 409, 422) },
  })
  // Logging a browser in from another site's page is login CSRF: the same check as POST /login.
  const sameSiteOnly = refuseCrossSiteLogins(app)

  app.post('/signup', { ...route, onRequest: signupLogin ? [sameSiteOnly, route.onRequest] : route.onRequest }, async (request, reply) => {
    const { accept_terms: _accepted, ...input } = request.body
    // A logged-in caller (USER_SIGNUP=authenticated) creates someone else's account: no session of it.
    const { user, session } = await account.signUp(input, clientOf(request), { logIn: signupLogin && !request.caller })
    // The new user's own sight: a logged-in caller creating the account wrote what it shows.
    const read = userReader(request, toUserReadV2, 'writer')(user)
    if (!session) return reply.code(201).send(read)
    return reply.code(201).send({ ...read, tokens: sendSession(reply, session) })
  })
}

export default signupRoutes
