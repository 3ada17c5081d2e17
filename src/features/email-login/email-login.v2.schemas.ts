import { Type } from 'typebox'

import { Email } from '../users/index.js'

export const EmailLoginRequest = Type.Object(
  {
    email: Email,
    redirect_to: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "Where the service's sign-in page sends the browser once signed in; its origin must be on AUTH_REDIRECT_ORIGINS.",
        examples: ['http://localhost:5173/signed-in'],
      }),
    ),
  },
  { additionalProperties: false, title: 'EmailLoginRequest' },
)

const LinkConfirmation = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' }) },
  { additionalProperties: false, title: 'EmailLoginLinkConfirmation' },
)

const CodeConfirmation = Type.Object(
  {
    email: Email,
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the mail', examples: ['042917'] }),
  },
  { additionalProperties: false, title: 'EmailLoginCodeConfirmation' },
)

export const EmailLoginConfirmation = Type.Union([LinkConfirmation, CodeConfirmation], {
  title: 'EmailLoginConfirmation',
  description: 'The token from the link, or the email and the code.',
})
