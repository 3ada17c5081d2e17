// Passkeys in v2: the caller registers, lists, renames and removes them; anyone signs in with
// one, with a username or without (a discoverable passkey). A passkey that verified its user is a
// complete sign-in: it answers the token pair, never mfa_required.
import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse, withNotice } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { refuseCrossSiteLogins, tokenReplies, TokenResponse } from '../auth/index.js'
import { toPasskeyRead } from './passkeys.v2.mappers.js'
import { PasskeyIdParams, PasskeyRead, PasskeyRegistration, PasskeyRename, PasskeySignIn, PasskeySignInOptionsRequest, WebauthnOptions } from './passkeys.v2.schemas.js'

const tags = ['passkeys']
const ownOnly = { apiKeys: false }

const passkeysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { passkeys, auth } = app.services
  const { sendSession } = tokenReplies(app)
  await app.register(cookie)
  const sameSiteOnly = refuseCrossSiteLogins(app)

  app.post(
    '/users/me/passkeys/options',
    protectedRoute(app, {
      tags,
      summary: 'Creation options for a new passkey of the caller',
      description: 'Resident key preferred, user verification required, attestation none; the caller\'s passkeys are excluded. The challenge works once, for 5 minutes.',
      response: { 200: WebauthnOptions, ...errorResponses(403) },
    }, { ...ownOnly, wayIn: 'adds' }),
    async (request) => passkeys.registrationOptions(tokenCallerOf(request).user),
  )

  app.post(
    '/users/me/passkeys',
    protectedRoute(app, {
      tags,
      summary: 'Register a passkey: the browser\'s answer to the creation options',
      description:
        '400 `invalid_passkey` when it does not verify (origin, RP id, challenge, user verification); 409 `passkey_exists` for one registered already. ' +
        "The account's first passkey is a new second factor: every other session of the caller ends, as after turning on an authenticator app.",
      body: PasskeyRegistration,
      response: { 201: PasskeyRead, ...errorResponses(400, 403, 409, 422) },
    }, { ...ownOnly, wayIn: 'adds' }),
    async (request, reply) => {
      const caller = tokenCallerOf(request)
      const passkey = await passkeys.register(caller.user, request.body.response, request.body.name, clientOf(request), caller.token.sessionId)
      return reply.code(201).send(toPasskeyRead(passkey))
    },
  )

  app.get(
    '/users/me/passkeys',
    protectedRoute(app, { tags, summary: "The caller's passkeys, oldest first", response: { 200: Type.Array(PasskeyRead), ...errorResponses(403) } }, ownOnly),
    async (request) => (await passkeys.list(tokenCallerOf(request).user.id)).map(toPasskeyRead),
  )

  app.patch(
    '/users/me/passkeys/:passkey_id',
    protectedRoute(app, { tags, summary: 'Rename one of the caller\'s passkeys', params: PasskeyIdParams, body: PasskeyRename, response: { 200: PasskeyRead, ...errorResponses(403, 404, 422) } }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request) => toPasskeyRead(await passkeys.rename(tokenCallerOf(request).user.id, request.params.passkey_id, request.body.name)),
  )

  app.delete(
    '/users/me/passkeys/:passkey_id',
    protectedRoute(app, {
      tags,
      summary: 'Remove one of the caller\'s passkeys',
      description: '409 `last_sign_in_method` when it is the last way to sign in (no password, no identity, no other passkey).',
      params: PasskeyIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 409, 422) },
    }, { ...ownOnly, wayIn: 'none', reauthenticate: true }),
    async (request) => {
      const { user } = tokenCallerOf(request)
      await passkeys.remove(user.id, request.params.passkey_id, clientOf(request))
      // Their last second factor, and an organization that requires one: they hear it here first.
      return { message: withNotice('Passkey removed', await app.services.orgs.noticeAfterFactorRemoved(user.id)) }
    },
  )

  app.post(
    '/login/passkey/options',
    {
      config: { door: 'exempt' },
      schema: {
        tags: ['login'],
        summary: 'Request options for signing in with a passkey',
        description: "With `username`, that account's passkeys (a name no account has gets the same answer as none); without, any discoverable passkey. The challenge works once, for 5 minutes.",
        body: PasskeySignInOptionsRequest,
        response: { 200: WebauthnOptions, ...errorResponses(422) },
      },
    },
    async (request) => passkeys.signInOptions(request.body.username),
  )

  app.post(
    '/login/passkey',
    {
      config: { door: 'exempt' },
      onRequest: sameSiteOnly,
      schema: {
        tags: ['login'],
        summary: 'Sign in with a passkey',
        description:
          "The browser's answer to the request options. A passkey with user verification is a complete sign-in: the token pair and cookies, as POST /login answers, and no second factor. " +
          '401 `invalid_passkey` when it does not verify, answers no live challenge, or its signature counter went backwards (a cloned authenticator; logged). Counted against the address\'s login budget.',
        body: PasskeySignIn,
        response: { 200: TokenResponse, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => sendSession(reply, await auth.signIn('passkey', request.body.response, clientOf(request))),
  )
}

export default passkeysRoutes
