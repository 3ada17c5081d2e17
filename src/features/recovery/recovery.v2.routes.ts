// Recovering an account in v2: before a reset, the owner sees every way in (from the reset link,
// without spending it) and chooses which passkeys and identities to keep; the reset ends the
// rest with every session and API key, and says what it ended (AccountRecovery).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { errorResponses } from '../../api/common/responses.js'
import { EndedWaysInRead, PasswordResetConfirmationV2, WaysInRead, WaysInRequest } from '../reauthentication/index.js'
import type { EndedWaysIn, WaysIn } from './recovery.service.js'

const tags = ['account']

export const toWaysInRead = (ways: WaysIn) => ({
  password: ways.password,
  passkeys: ways.passkeys.map((passkey) => ({ id: passkey.id, name: passkey.name, created_at: passkey.createdAt, last_used_at: passkey.lastUsedAt })),
  identities: ways.identities.map((identity) => ({ id: identity.id, provider: identity.provider, email: identity.email, created_at: identity.createdAt })),
  authenticator_app: ways.authenticatorApp,
  api_keys: ways.apiKeys,
  sessions: ways.sessions,
})

const toEndedRead = (ended: EndedWaysIn) => ({
  sessions: ended.sessions,
  api_keys: ended.apiKeys,
  passkeys: ended.passkeys,
  identities: ended.identities,
  password: ended.password,
  second_factors: ended.secondFactors,
})

const recoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { account } = app.services

  app.post(
    '/password-reset/ways-in',
    {
      config: { door: 'exempt' },
      schema: {
        tags,
        summary: 'Every way into the account a reset link belongs to, so its owner can choose what to keep',
        description: 'The link stays usable. 400 `invalid_token` for an unknown, used or expired one.',
        body: WaysInRequest,
        response: { 200: WaysInRead, ...errorResponses(400, 422) },
      },
    },
    async (request) => toWaysInRead(await account.waysInForReset(request.body.token)),
  )

  app.post(
    '/password-reset/confirm',
    {
      config: { door: 'exempt' },
      schema: {
        tags,
        summary: 'Set a new password with the token from the mail, ending every way in the owner does not keep',
        description:
          'Every session and API key ends, and every passkey and linked identity not listed in `keep` (whoever had the account may have added them; POST /password-reset/ways-in lists them). ' +
          'An account that had never proved its mailbox loses its authenticator app too. The owner is mailed what ended. The second factor otherwise stays: a reset proves the mailbox, not the device.',
        body: PasswordResetConfirmationV2,
        response: { 200: EndedWaysInRead, ...errorResponses(400, 422) },
      },
    },
    async (request) => {
      const { token, new_password: password, keep } = request.body
      const ended = await account.confirmPasswordReset(token, password, clientOf(request), { passkeys: keep?.passkeys ?? [], identities: keep?.identities ?? [] })
      return { message: 'Password reset', ended: toEndedRead(ended) }
    },
  )
}

export default recoveryRoutes
