import { Type } from 'typebox'

// OAuth2 password-grant fields (as Swagger UI's Authorize sends them) or the same as JSON.
export const LoginRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email address' }),
    password: Type.String({ minLength: 1, maxLength: 128 }),
    grant_type: Type.Optional(Type.String({ pattern: '^password$' })),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
    client_id: Type.Optional(Type.String({ maxLength: 1000 })),
    client_secret: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, title: 'LoginRequest' },
)

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    refresh_token: Type.String(),
    password_breached: Type.Optional(
      Type.Boolean({ description: 'Present (true) on a password login whose password is in known breaches (BREACHED_PASSWORDS): ask the user to change it' }),
    ),
  },
  { title: 'TokenResponse' },
)

export const RefreshRequest = Type.Object(
  { refresh_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) },
  { additionalProperties: false, title: 'RefreshRequest' },
)

export const SessionRead = Type.Object(
  {
    id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.String({ format: 'date-time', description: 'The last login or token refresh' }),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'The session of this request' }),
  },
  { title: 'SessionRead' },
)

export const SessionIdParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) })
