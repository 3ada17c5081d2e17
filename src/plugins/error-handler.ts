// The one place errors become HTTP: every error body is `{detail, code}` (validation adds
// `errors`): `detail` a sentence for people, `code` a stable name for programs (ERROR_CODES in
// src/shared/errors.ts). Nothing internal (stack, SQL, driver text) ever reaches a client.
import { STATUS_CODES } from 'node:http'

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

import { isDatabaseUnavailable, isInvalidText } from '../db/errors.js'
import type { ErrorCode, ErrorKind } from '../shared/errors.js'
import { DomainError, FILE_TOO_LARGE, NOT_FOUND, REQUEST_BODY_TOO_LARGE, RuleViolation, SERVICE_UNAVAILABLE } from '../shared/errors.js'
import { redactUrl } from '../shared/redact-url.js'
import type { ValidationContext } from '../shared/validation/validation-issues.js'
import { toValidationIssues, validationDetail } from '../shared/validation/validation-issues.js'
import { setResponseHeaders } from './response-headers.js'

/** What a 503 for a database that does not answer asks the client to wait before trying again. */
const DATABASE_RETRY_AFTER_SECONDS = 5

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unprocessable: 422,
  unsupported: 415,
  unavailable: 503,
}

/** Fastify and plugin error codes whose meaning we phrase ourselves. */
const FRAMEWORK_ERRORS: Record<string, ErrorBody & { status: number }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: REQUEST_BODY_TOO_LARGE, code: 'request_too_large' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, detail: FILE_TOO_LARGE, code: 'request_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type', code: 'unsupported_media_type' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, detail: 'Expected a multipart/form-data request', code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, detail: 'Request body is not valid JSON', code: 'invalid_json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Request body is empty but declared as JSON', code: 'invalid_json' },
  FST_PARTS_LIMIT: { status: 413, detail: 'Too many parts in the multipart request', code: 'request_too_large' },
  FST_FILES_LIMIT: { status: 413, detail: 'Too many files in the multipart request', code: 'request_too_large' },
  FST_FIELDS_LIMIT: { status: 413, detail: 'Too many fields in the multipart request', code: 'request_too_large' },
  FST_PROTO_VIOLATION: { status: 400, detail: 'Prototype property is not allowed', code: 'bad_request' },
  // Raised by the router before any route runs; Fastify's own messages would echo the path.
  FST_ERR_BAD_URL: { status: 400, detail: 'Malformed URL', code: 'malformed_url' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, detail: 'URI too long', code: 'request_too_large' },
}

/** Codes for Fastify's other client errors, which name only their status. */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = { 404: 'not_found', 413: 'request_too_large', 414: 'request_too_large', 415: 'unsupported_media_type' }

/** What every error body holds (validation adds `errors`). */
interface ErrorBody {
  detail: string
  code: ErrorCode
}

const send = (reply: FastifyReply, status: number, detail: string, code: ErrorCode) => reply.code(status).send({ detail, code } satisfies ErrorBody)

function handleError(this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // The client went away mid-body (Node reports it as ECONNRESET "aborted", a body parser as a
  // broken body): nobody hears the answer, and it is no outage of ours, so it must never reach
  // the database-unavailable path, whatever error the parser made of it.
  if (request.raw.readableAborted) {
    this.logger.info({ reqId: request.id, method: request.method, url: redactUrl(request.url) }, 'request aborted by the client')
    return send(reply, 400, 'Request aborted', 'request_aborted')
  }

  if (error instanceof RuleViolation) {
    return reply.code(422).send({ detail: error.message, code: error.code, errors: [{ loc: [error.location, error.field], msg: error.message, type: error.type }] })
  }

  if (error instanceof DomainError) {
    const status = STATUS_BY_KIND[error.kind]
    if (status === 401) reply.header('www-authenticate', 'Bearer')
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
    if (status >= 500 && error.code === 'service_unavailable') this.logger.warn({ err: error, reqId: request.id }, 'request failed: dependency unavailable')
    if (error.fields) return reply.code(status).send({ ...error.fields, detail: error.message, code: error.code })
    return send(reply, status, error.message, error.code)
  }

  if (error.validation) {
    const issues = toValidationIssues(error.validation, (error.validationContext ?? 'body') as ValidationContext)
    return reply.code(422).send({ detail: validationDetail(issues), code: 'validation_failed', errors: issues })
  }

  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined
  if (known) return send(reply, known.status, known.detail, known.code)

  if (isInvalidText(error)) return send(reply, 400, 'Request contains text that cannot be stored', 'invalid_text')

  if (isDatabaseUnavailable(error)) {
    this.logger.warn({ err: error, reqId: request.id }, 'request failed: database unavailable')
    // A restart or failover of the primary takes seconds: a client (or a balancer) tries again then.
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
    return send(reply, 503, SERVICE_UNAVAILABLE, 'service_unavailable')
  }

  // Other client errors raised by Fastify itself: their status, in words that echo no input.
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500 && typeof error.code === 'string' && error.code.startsWith('FST_')) {
    return send(reply, status, STATUS_CODES[status] ?? 'Bad request', CODE_BY_STATUS[status] ?? 'bad_request')
  }

  this.logger.error({ err: error, reqId: request.id }, 'unhandled error')
  return send(reply, 500, 'Internal server error', 'internal_error')
}

/**
 * For Fastify's `frameworkErrors`: router errors raised before any route or hook runs (malformed
 * URL, over-long parameter). They get the same `{detail}` and the API's security headers, and
 * never echo the path.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = (error.code ? FRAMEWORK_ERRORS[error.code] : undefined) ?? { status: 400, detail: 'Bad request', code: 'bad_request' }
  setResponseHeaders(request, reply)
  return send(reply, known.status, known.detail, known.code)
}

/**
 * The one 404 for unknown routes. Each API version sets it in its own context as well, so that
 * the version's hooks (deprecation headers) run for its unknown paths too.
 */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  request.server.countUnmatched?.(request.method, reply.elapsedTime / 1000)
  setResponseHeaders(request, reply)
  return send(reply, 404, NOT_FOUND, 'not_found')
}

export default fp(
  async (app) => {
    app.setErrorHandler(handleError)
    app.setNotFoundHandler(notFoundHandler)
    // A client that hung up while the request's hooks were still waiting (a limiter's round trip
    // on a busy machine) has already ended its body: a parser started now would wait for an end
    // that never comes. Refused here, in the same tick the parser would start.
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (request.raw.readableAborted) throw new Error('aborted')
      return payload
    })
  },
  { name: 'error-handler' },
)
