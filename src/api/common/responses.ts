// Response schemas shared by every version: the error format and the simple message object.
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

/** The stable, machine-readable name of the error; clients match on it rather than on `detail`. */
const ErrorCode = Type.String({ pattern: '^[a-z][a-z_]*$', description: 'A stable name for the error, for programs to match on (the table in this document\'s description).' })

export const ErrorResponse = Type.Object(
  {
    detail: Type.String({ description: 'What went wrong, in one sentence.' }),
    code: ErrorCode,
    provider: Type.Optional(Type.String({ description: 'With `captcha_required` and `captcha_failed`: the CAPTCHA provider (turnstile, hcaptcha, recaptcha).' })),
    site_key: Type.Optional(Type.String({ description: "With `captcha_required` and `captcha_failed`: the widget's site key." })),
    breach_count: Type.Optional(Type.Integer({ description: 'With `password_breached`: how many times the password was seen in breaches.' })),
    deletion_due_at: Type.Optional(Type.String({ description: 'With `account_pending_deletion`: when the account is removed for good unless the deletion is taken back.' })),
    banned_until: Type.Optional(Type.String({ description: 'With `account_banned`: when the ban ends (an ISO 8601 time), or "forever".' })),
  },
  { title: 'ErrorResponse' },
)

export const ValidationErrorResponse = Type.Object(
  {
    detail: Type.String({ description: 'A readable sentence naming each failing field.' }),
    code: Type.Literal('validation_failed', { description: 'Always `validation_failed` for a 422.' }),
    errors: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
          description: 'Where: body, query or path, then the field.',
        }),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  },
  { title: 'ValidationErrorResponse' },
)

/**
 * A refused sign-in (401): wrong credentials, or, with code `mfa_required`, a first factor that was
 * right for an account with a second factor, and the token to finish with at POST /api/v2/login/mfa.
 */
export const SignInRefusedResponse = Type.Object(
  {
    ...ErrorResponse.properties,
    mfa_token: Type.Optional(Type.String({ description: 'With `mfa_required`: single use, for 5 minutes, for this user and first factor.' })),
    methods: Type.Optional(Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code'), Type.Literal('passkey')]), { description: 'With `mfa_required`: the second factors the account accepts.' })),
  },
  { title: 'SignInRefused', description: 'Wrong credentials, or a second factor is due (`mfa_required`)' },
)

/** The 401 of a route that proves a first factor. */
export const signInRefusal = { 401: SignInRefusedResponse }

/**
 * A refusal that names the proofs of identity the account can give: 403 `reauthentication_required`
 * (a route that needs a recent proof) and 409 `reauthentication_method_unavailable`.
 */
export const ReauthenticationRefusedResponse = Type.Object(
  {
    ...ErrorResponse.properties,
    methods: Type.Optional(
      Type.Array(Type.Union(['password', 'totp', 'recovery_code', 'passkey', 'email_code'].map((method) => Type.Literal(method))), {
        description: 'With `reauthentication_required` or `reauthentication_method_unavailable`: the proofs POST /api/v2/reauthenticate takes for this account',
      }),
    ),
  },
  { title: 'ReauthenticationRefused', description: 'Not enough permissions, or (`reauthentication_required`) a recent proof of identity is needed first' },
)

export const MessageResponse = Type.Object({ message: Type.String() }, { title: 'Message' })

/** A message with what else the caller should know, when there is something. */
export const withNotice = (message: string, notice: string | undefined) => (notice === undefined ? message : `${message}. ${notice}`)

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated: missing, malformed, expired or revoked token',
  403: 'Not enough permissions',
  404: 'Not found',
  409: 'Conflict with an existing record',
  410: 'This API version has passed its sunset date',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests',
  503: 'Service unavailable',
}

const errorSchemaFor = (status: number) =>
  status === 422 ? ValidationErrorResponse : Type.Object(ErrorResponse.properties, { description: DESCRIPTIONS[status] })

/** The error responses a route can give, for validation-aware serialization and the docs. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {}
  for (const status of statuses) responses[status] = errorSchemaFor(status)
  return responses
}
