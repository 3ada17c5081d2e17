import { Type } from 'typebox'
import { Email, Password } from '../users/users.schemas.js'

const Token = Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' })

export const TokenConfirmation = Type.Object({ token: Token }, { additionalProperties: false, title: 'TokenConfirmation' })

export const PasswordResetRequest = Type.Object({ email: Email }, { additionalProperties: false, title: 'PasswordResetRequest' })

export const PasswordResetConfirmation = Type.Object(
  { token: Token, new_password: Password },
  { additionalProperties: false, title: 'PasswordResetConfirmation' },
)

export const PasswordChange = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 128 }), new_password: Password },
  { additionalProperties: false, title: 'PasswordChange' },
)
