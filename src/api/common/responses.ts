// Response schemas shared by every version: the error format and the simple message object.
import { Type } from 'typebox'
import type { TSchema } from 'typebox'

export const ErrorResponse = Type.Object(
  { detail: Type.String({ description: 'What went wrong, in one sentence.' }) },
  { title: 'ErrorResponse' },
)

export const ValidationErrorResponse = Type.Object(
  {
    detail: Type.String({ description: 'A readable sentence naming each failing field.' }),
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

export const MessageResponse = Type.Object({ message: Type.String() }, { title: 'Message' })

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
