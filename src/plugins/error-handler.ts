// The one place errors become HTTP: every error body is `{detail: string}` (validation adds
// `errors`), and nothing internal (stack, SQL, driver text) ever reaches a client.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable } from '../db/errors.js'
import { DomainError } from '../shared/errors.js'
import type { ErrorKind } from '../shared/errors.js'

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
}

export const REQUEST_BODY_TOO_LARGE = 'Request body too large'
export const FILE_TOO_LARGE = 'File too large'

/** Fastify and plugin error codes whose meaning we phrase ourselves. */
const FRAMEWORK_ERRORS: Record<string, { status: number; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: REQUEST_BODY_TOO_LARGE },
  FST_REQ_FILE_TOO_LARGE: { status: 413, detail: FILE_TOO_LARGE },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, detail: 'Expected a multipart/form-data request' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, detail: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Request body is empty but declared as JSON' },
  FST_PARTS_LIMIT: { status: 413, detail: 'Too many parts in the multipart request' },
  FST_FILES_LIMIT: { status: 413, detail: 'Too many files in the multipart request' },
  FST_FIELDS_LIMIT: { status: 413, detail: 'Too many fields in the multipart request' },
  FST_PROTO_VIOLATION: { status: 400, detail: 'Prototype property is not allowed' },
}

export interface ValidationIssue {
  loc: (string | number)[]
  msg: string
  type: string
}

function describe(error: FastifySchemaValidationError): { msg: string; type: string } {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' }
    case 'additionalProperties':
      return { msg: 'Extra fields not permitted', type: 'extra_forbidden' }
    case 'type':
      return { msg: `Input should be of type ${String(params.type)}`, type: `${String(params.type)}_type` }
    case 'minLength':
      return { msg: `String should have at least ${String(params.limit)} characters`, type: 'string_too_short' }
    case 'maxLength':
      return { msg: `String should have at most ${String(params.limit)} characters`, type: 'string_too_long' }
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${String(params.limit)}`, type: 'greater_than_equal' }
    case 'maximum':
      return { msg: `Input should be less than or equal to ${String(params.limit)}`, type: 'less_than_equal' }
    case 'pattern':
      return { msg: `String should match pattern '${String(params.pattern)}'`, type: 'string_pattern_mismatch' }
    case 'format':
      return { msg: `Input should be a valid ${String(params.format)}`, type: 'value_error' }
    case 'minProperties':
      return { msg: 'At least one field is required', type: 'missing' }
    case 'const':
      return { msg: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'literal_error' }
    case 'enum':
      return { msg: 'Input should be one of the allowed values', type: 'enum' }
    default:
      return { msg: error.message ?? 'Invalid value', type: error.keyword }
  }
}

function locationOf(error: FastifySchemaValidationError, context: string): (string | number)[] {
  const loc: (string | number)[] = [context === 'querystring' ? 'query' : context === 'params' ? 'path' : context]
  for (const segment of error.instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~')
    loc.push(/^\d+$/.test(key) ? Number(key) : key)
  }
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required') loc.push(String(params.missingProperty))
  if (error.keyword === 'additionalProperties') loc.push(String(params.additionalProperty))
  return loc
}

export function toValidationIssues(errors: FastifySchemaValidationError[], context: string): ValidationIssue[] {
  // anyOf reports each failed branch and then itself; the branches' own errors say it better.
  const relevant = errors.length > 1 ? errors.filter((error) => error.keyword !== 'anyOf') : errors
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  for (const error of relevant) {
    const issue = { loc: locationOf(error, context), ...describe(error) }
    const key = JSON.stringify(issue.loc) + issue.type
    if (!seen.has(key)) {
      seen.add(key)
      issues.push(issue)
    }
  }
  return issues
}

function validationDetail(issues: ValidationIssue[]): string {
  const parts = issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
  return `Invalid request: ${parts.join('; ')}`
}

function handleError(this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) {
    const status = STATUS_BY_KIND[error.kind]
    if (status === 401) reply.header('www-authenticate', 'Bearer')
    if (status === 429 && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
    if (status >= 500) this.logger.warn({ err: error, reqId: request.id }, 'request failed: dependency unavailable')
    return reply.code(status).send({ detail: error.message })
  }

  if (error.validation) {
    const issues = toValidationIssues(error.validation, error.validationContext ?? 'body')
    return reply.code(422).send({ detail: validationDetail(issues), errors: issues })
  }

  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined
  if (known) return reply.code(known.status).send({ detail: known.detail })

  if (isDatabaseUnavailable(error)) {
    this.logger.warn({ err: error, reqId: request.id }, 'request failed: database unavailable')
    return reply.code(503).send({ detail: 'Service unavailable' })
  }

  // Other client errors raised by Fastify itself carry safe, specific messages.
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500 && typeof error.code === 'string' && error.code.startsWith('FST_')) {
    return reply.code(status).send({ detail: error.message })
  }

  this.logger.error({ err: error, reqId: request.id }, 'unhandled error')
  return reply.code(500).send({ detail: 'Internal server error' })
}

export default fp(
  async (app) => {
    app.setErrorHandler(handleError)
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }))
  },
  { name: 'error-handler' },
)
