import { Type } from 'typebox'

import { Email, Password } from '../users/index.js'

const Token = Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' })

export const TokenConfirmation = Type.Object({ token: Token }, { additionalProperties: false, title: 'TokenConfirmation' })

export const PasswordResetRequest = Type.Object({ email: Email }, { additionalProperties: false, title: 'PasswordResetRequest' })

export const PasswordResetConfirmation = Type.Object(
  { token: Token, new_password: Password },
  { additionalProperties: false, title: 'PasswordResetConfirmation' },
)

export const PasswordChange = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 128 }),
    new_password: Password,
    revoke_api_keys: Type.Optional(Type.Boolean({ default: false, description: "Also revoke every API key of the caller's (a password reset always does)." })),
  },
  { additionalProperties: false, title: 'PasswordChange' },
)

export const PasswordChanged = Type.Object(
  {
    message: Type.String(),
    revoked_api_keys: Type.Integer({ minimum: 0, description: 'API keys this change revoked.' }),
    live_api_keys: Type.Integer({ minimum: 0, description: 'API keys of the caller that still work; send revoke_api_keys: true to revoke them.' }),
  },
  { additionalProperties: false, title: 'PasswordChanged' },
)
