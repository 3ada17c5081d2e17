// Wire shapes of reauthentication (a recent proof of identity) and of recovery's list of ways in.
import { Type } from 'typebox'

import { AssertionCredential } from '../passkeys/index.js'
import { Password } from '../users/index.js'

export const ReauthenticationMethod = Type.Union(
  ['password', 'totp', 'recovery_code', 'passkey', 'email_code'].map((method) => Type.Literal(method)),
  { description: 'A proof the account can give' },
)

export const ReauthenticationRead = Type.Object(
  {
    fresh_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Until when this session may do sensitive actions; null: it must reauthenticate first' }),
    methods: Type.Array(ReauthenticationMethod, {
      description: 'The proofs POST /api/v2/reauthenticate takes for this account: its second factors when it has any, else its password, else a mailed code',
    }),
  },
  { title: 'Reauthentication' },
)

const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code the authenticator app shows now' })

export const ReauthenticationProof = Type.Union(
  [
    Type.Object({ password: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
    Type.Object({ code: TotpCode }, { additionalProperties: false }),
    Type.Object({ recovery_code: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
    Type.Object({ passkey_response: AssertionCredential }, { additionalProperties: false }),
    Type.Object({ email_code: Type.String({ pattern: '^[0-9]{6}$', description: 'The code from POST /api/v2/reauthenticate/email' }) }, { additionalProperties: false }),
  ],
  {
    title: 'ReauthenticationProof',
    description: 'One of `{password}`, `{code}` (TOTP), `{recovery_code}`, `{passkey_response}` (the answer to POST /api/v2/reauthenticate/passkey/options) or `{email_code}`',
  },
)

export const WaysInRequest = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the reset link (not spent by this call)' }) },
  { additionalProperties: false, title: 'WaysInRequest' },
)

export const WaysInRead = Type.Object(
  {
    password: Type.Boolean({ description: 'The account has a password' }),
    passkeys: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String({ format: 'date-time' }), last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]) }),
    ),
    identities: Type.Array(
      Type.Object({ id: Type.String(), provider: Type.String(), email: Type.Union([Type.String(), Type.Null()]), created_at: Type.String({ format: 'date-time' }) }),
    ),
    authenticator_app: Type.Boolean({ description: 'A TOTP authenticator is set up (a reset keeps it)' }),
    api_keys: Type.Integer({ description: 'Live API keys (a reset ends them all)' }),
    sessions: Type.Integer({ description: 'Live sessions (a reset ends them all)' }),
  },
  { title: 'WaysIn' },
)

const Ids = (what: string) => Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, description: `Ids of the ${what} to keep (from POST /api/v2/password-reset/ways-in); the others end` })

export const PasswordResetConfirmationV2 = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' }),
    new_password: Password,
    keep: Type.Optional(Type.Object({ passkeys: Type.Optional(Ids('passkeys')), identities: Type.Optional(Ids('linked identities')) }, { additionalProperties: false })),
  },
  { additionalProperties: false, title: 'PasswordResetConfirmation' },
)

export const EndedWaysInRead = Type.Object(
  {
    message: Type.String(),
    ended: Type.Object(
      {
        sessions: Type.Integer(),
        api_keys: Type.Integer(),
        passkeys: Type.Array(Type.String(), { description: 'Names of the passkeys removed' }),
        identities: Type.Array(Type.String(), { description: 'Providers unlinked' }),
        password: Type.Boolean({ description: 'The old password was removed before the new one was set (an account that had never proved its mailbox)' }),
        second_factors: Type.Boolean({ description: 'The authenticator app was removed (an account that had never proved its mailbox)' }),
      },
      { description: 'What the reset ended' },
    ),
  },
  { title: 'PasswordResetDone' },
)
