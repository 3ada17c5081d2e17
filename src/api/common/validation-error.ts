import type { FastifySchemaValidationError } from 'fastify'

/** A 422 raised by a handler (for input a schema cannot describe, such as multipart parts). */
export function requestValidationError(
  context: 'body' | 'querystring' | 'params',
  errors: FastifySchemaValidationError[],
): Error & { validation: FastifySchemaValidationError[]; validationContext: string } {
  return Object.assign(new Error('validation failed'), { validation: errors, validationContext: context })
}

export function missingField(context: 'body' | 'querystring' | 'params', field: string) {
  return requestValidationError(context, [
    { keyword: 'required', instancePath: '', schemaPath: '', params: { missingProperty: field }, message: 'is required' },
  ])
}
