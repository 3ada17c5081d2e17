import { Type } from 'typebox'

export const ProviderRead = Type.Object(
  {
    name: Type.String({ description: 'Used in the paths: /api/v2/auth/{name}/authorize', examples: ['google'] }),
    label: Type.String({ description: 'For the button', examples: ['Google'] }),
  },
  { title: 'ProviderRead' },
)

export const ProviderParams = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) })

const Base64UrlOf = (length: { min: number; max: number }, description: string) => Type.String({ pattern: '^[A-Za-z0-9_~.-]+$', minLength: length.min, maxLength: length.max, description })

export const AuthorizeQuery = Type.Object({
  link_ticket: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'From POST /api/v2/users/me/identities/{provider}: link instead of sign in' })),
  code_challenge: Type.Optional(
    Base64UrlOf(
      { min: 43, max: 43 },
      'The frontend\'s PKCE challenge for the hand-off code: BASE64URL(SHA-256(verifier)) of a verifier it keeps (43-128 characters). The exchange must then bring `code_verifier`; without it, the code is bound to this browser by a cookie instead.',
    ),
  ),
  code_challenge_method: Type.Optional(Type.Literal('S256', { description: 'Only S256' })),
  redirect_to: Type.Optional(Type.String({
    maxLength: 2048,
    description: 'Where the browser goes when the sign-in ends, with `code` or `error`; its origin must be on AUTH_REDIRECT_ORIGINS. Required unless `link_ticket` is given.',
    examples: ['http://localhost:5173/signed-in'],
  })),
})

export const LinkRequest = Type.Object(
  {
    redirect_to: Type.String({
      maxLength: 2048,
      description: 'Where the browser lands once linked, with `linked` or `error`; its origin must be on AUTH_REDIRECT_ORIGINS.',
      examples: ['http://localhost:5173/settings'],
    }),
  },
  { additionalProperties: false, title: 'LinkRequest' },
)

export const LinkStarted = Type.Object(
  { authorize_url: Type.String({ description: 'Open it in the browser that made this call (its cookie binds the ticket)' }) },
  { title: 'LinkStarted' },
)

export const IdentityIdParams = Type.Object({ identity_id: Type.String({ minLength: 1, maxLength: 36 }) })

/**
 * /users/me/identities/{identity}: one path segment that names the provider to link (POST) or
 * the linked identity to remove (DELETE). OpenAPI allows one parameter name per path shape.
 */
export const OwnIdentityParams = Type.Object({
  identity: Type.String({ minLength: 1, maxLength: 40, description: 'POST: the provider to link (`google`); DELETE: the id of the linked identity' }),
})

export const CodeExchange = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 200, description: 'The one-time code redirect_to received' }),
    code_verifier: Type.Optional(Base64UrlOf({ min: 43, max: 128 }, 'The verifier whose challenge went to authorize as `code_challenge`')),
  },
  { additionalProperties: false, title: 'CodeExchange' },
)

export const IdentityRead = Type.Object(
  {
    id: Type.String(),
    provider: Type.String({ examples: ['google'] }),
    email: Type.Union([Type.String(), Type.Null()], { description: 'The email the provider gave when the identity was linked' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'IdentityRead' },
)
