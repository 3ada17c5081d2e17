import { Type } from 'typebox'

export const ProviderRead = Type.Object(
  {
    name: Type.String({ description: 'Used in the paths: /api/v2/auth/{name}/authorize', examples: ['google'] }),
    label: Type.String({ description: 'For the button', examples: ['Google'] }),
  },
  { title: 'ProviderRead' },
)

export const ProviderParams = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) })

export const AuthorizeQuery = Type.Object({
  redirect_to: Type.String({
    maxLength: 2048,
    description: 'Where the browser goes when the sign-in ends, with `code` or `error`; its origin must be on AUTH_REDIRECT_ORIGINS.',
    examples: ['http://localhost:5173/signed-in'],
  }),
})

export const CodeExchange = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 200, description: 'The one-time code redirect_to received' }) },
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
