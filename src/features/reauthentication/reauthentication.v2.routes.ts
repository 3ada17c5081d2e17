// Reauthentication in v2: how fresh the caller's session is and what proofs the account can give,
// the proof itself, and the two ceremonies some proofs need first (a passkey's challenge, a
// mailed code). A fresh session may add ways in and change second factors for 10 minutes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse, ReauthenticationRefusedResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { WebauthnOptions } from '../passkeys/index.js'
import type { Freshness, ReauthenticationProof as Proof } from './reauthentication.service.js'
import { ReauthenticationProof, ReauthenticationRead } from './reauthentication.v2.schemas.js'

const tags = ['account']
const ownOnly = { apiKeys: false } as const

const toReauthenticationRead = (freshness: Freshness) => ({ fresh_until: freshness.freshUntil?.toISOString() ?? null, methods: freshness.methods })

const reauthenticationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { reauthentication } = app.services

  app.get(
    '/reauthenticate',
    protectedRoute(app, {
      tags,
      summary: "How fresh the caller's session is, and the proofs the account can give",
      response: { 200: ReauthenticationRead, ...errorResponses(403) },
    }, ownOnly),
    async (request) => toReauthenticationRead(await reauthentication.freshness(tokenCallerOf(request))),
  )

  app.post(
    '/reauthenticate',
    protectedRoute(app, {
      tags,
      summary: 'Prove who holds this session again: it may then add ways in and change second factors for 10 minutes',
      description:
        'A proof `methods` lists: on an account with a second factor, a TOTP code, a recovery code or a passkey (a password alone is 409 `reauthentication_method_unavailable`); ' +
        'else the password; an account with neither gets a mailed code (POST /reauthenticate/email). A wrong proof is 400 (`incorrect_password`, `invalid_mfa_code`, `invalid_passkey`, `invalid_code`), counted as sign-in guesses are.',
      body: ReauthenticationProof,
      response: { 200: ReauthenticationRead, ...errorResponses(400, 403, 422, 429), 409: ReauthenticationRefusedResponse },
    }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      const { body } = request
      const proof: Proof =
        'password' in body
          ? { password: body.password }
          : 'code' in body
            ? { code: body.code }
            : 'recovery_code' in body
              ? { recoveryCode: body.recovery_code }
              : 'passkey_response' in body
                ? { passkeyResponse: body.passkey_response }
                : { emailCode: body.email_code }
      return toReauthenticationRead(await reauthentication.prove(tokenCallerOf(request), proof, clientOf(request)))
    },
  )

  app.post(
    '/reauthenticate/passkey/options',
    protectedRoute(app, {
      tags,
      summary: "Request options for proving it with one of the caller's passkeys",
      description: "The caller's passkeys, and a challenge for this purpose (single use, 5 minutes). Post the browser's answer to POST /reauthenticate as `passkey_response`.",
      response: { 200: WebauthnOptions, ...errorResponses(403), 409: ReauthenticationRefusedResponse },
    }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request) => reauthentication.passkeyOptions(tokenCallerOf(request)),
  )

  app.post(
    '/reauthenticate/email',
    protectedRoute(app, {
      tags,
      summary: 'Mail the caller a code that proves it is them, for an account with no password, second factor or passkey',
      description: 'Six digits, valid 10 minutes, five tries; post it to POST /reauthenticate as `email_code`. Limited as sign-in mails are. 409 `reauthentication_method_unavailable` for an account with another proof.',
      response: { 202: MessageResponse, ...errorResponses(403, 429), 409: ReauthenticationRefusedResponse },
    }, { ...ownOnly, wayIn: 'none', impersonation: 'refused' }),
    async (request, reply) => {
      await reauthentication.mailCode(tokenCallerOf(request), clientOf(request))
      return reply.code(202).send({ message: 'A code is on its way' })
    },
  )
}

export default reauthenticationRoutes
