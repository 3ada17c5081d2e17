// Domain errors: what went wrong, in the service's terms. Services throw them; the one error
// handler (src/plugins/error-handler.ts) decides the HTTP status. No HTTP in here.

export type ErrorKind =
  | 'invalid' // the input is well-formed but unacceptable (e.g. not an image)
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'gone'
  | 'unprocessable' // well-formed and schema-valid, refused by a rule (e.g. a too-common password): 422
  | 'unsupported' // the content is of a type the route does not take: 415

/**
 * The machine-readable `code`s an error body can carry that belong to no one slice, with what
 * they mean; each slice adds its own (its errors.ts), and the slice list composes the whole table
 * (ERROR_CODES, src/features/index.ts). Clients match on these, never on `detail`; a code once
 * published keeps its meaning. docs/api.md and both OpenAPI documents list the table (a test
 * holds them to it).
 */
export const CORE_ERROR_CODES = {
  // Any status
  validation_failed: 'The request (body, query or path) breaks its schema or a field rule; `errors` names each field (422).',
  bad_request: 'The request is malformed in a way no other code names (400).',
  invalid_json: 'The body is not valid JSON, or is empty while declared as JSON (400).',
  malformed_url: 'The URL cannot be decoded (400).',
  request_aborted: 'The client went away before the body arrived (400).',
  invalid_text: 'The request holds text that cannot be stored, such as a NUL character (400).',
  request_too_large: 'The body, a multipart part or the URL is larger than allowed (413, 414).',
  unsupported_media_type: 'The body has a content type this route does not accept (415).',
  not_found: 'No route, resource or file at this address (404).',
  rate_limited: 'A limit was reached; `Retry-After` says when to try again (429).',
  service_unavailable: 'The database, Redis or another store is unavailable, or the server is shutting down (503).',
  version_sunset: 'This API version has passed its sunset date (410).',
  internal_error: 'An unexpected failure; the server logged it with the request id (500).',
  // Authentication and permissions
  not_authenticated: 'The token or API key is missing, malformed, expired or revoked (401).',
  forbidden: 'The caller may not do this (403).',
  api_key_not_allowed: 'This route refuses API keys: use a login token (403).',
  api_key_scope_insufficient: "The API key's scopes do not allow this method (403).",
  cross_site_refused: 'A browser sent this request from another site, and this route takes none (403).',
  conflict: 'The change conflicts with an existing record (409).',
  // Shared by several ways in
  invalid_token: 'The verification, password-reset or sign-in token is invalid, used or expired (400).',
  invalid_redirect: 'A `redirect_to` is not on AUTH_REDIRECT_ORIGINS (400).',
  invalid_passkey: 'The passkey response does not verify, answers no live challenge of its kind, or its signature counter went backwards (a cloned authenticator): 401 when signing in, 400 when registering.',
  mfa_enrolment_required: 'A second factor is required first: REQUIRE_MFA_FOR_SUPERUSERS for a superuser, or an organization that requires one of its members; enrol at /users/me/mfa (403).',
  // Uploads
  malformed_multipart: 'The multipart body cannot be read (400).',
  // Support impersonation (held on every route)
  impersonation_read_only: 'A read-only impersonation may only read: every method but GET and HEAD is refused (403).',
  impersonation_forbidden: "An impersonation never changes a way into the account (password, email, second factors, passkeys, identities, API keys, sessions), exports or deletes it, or starts another impersonation (403).",
} as const

/** The codes the slices add, each in its errors.ts (`declare module`), so a new code needs no line here. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SliceErrorCodes {}

export type ErrorCode = keyof typeof CORE_ERROR_CODES | keyof SliceErrorCodes

/** The code of an error thrown without one of its own. */
const CODE_BY_KIND: Record<ErrorKind, ErrorCode> = {
  invalid: 'bad_request',
  unauthenticated: 'not_authenticated',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
  too_large: 'request_too_large',
  rate_limited: 'rate_limited',
  unavailable: 'service_unavailable',
  gone: 'version_sunset',
  unprocessable: 'validation_failed',
  unsupported: 'unsupported_media_type',
}

export interface DomainErrorOptions {
  /** The stable code clients match on; by default the kind's general one. */
  code?: ErrorCode
  /** More fields of the error body, beside `detail` and `code` (what a client needs to go on). */
  fields?: Record<string, unknown>
  /** For rate_limited: seconds until another attempt may succeed. */
  retryAfterSeconds?: number
}

export class DomainError extends Error {
  readonly code: ErrorCode
  readonly retryAfterSeconds?: number
  readonly fields?: Record<string, unknown>

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message)
    this.name = 'DomainError'
    this.code = options.code ?? CODE_BY_KIND[kind]
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
    if (options.fields !== undefined) this.fields = options.fields
  }
}

/** A field that passed its schema but breaks a rule (422, reported like a validation error). */
export class RuleViolation extends DomainError {
  /** Where the field is: the body, or the query string. */
  readonly location: 'body' | 'query'

  constructor(
    readonly field: string,
    message: string,
    readonly type: string,
    /** `location` defaults to the body; `code`, to validation_failed (a rule with a code of its own: image_too_large, sort_too_broad, filter_too_broad, search_query_empty). */
    options: { location?: 'body' | 'query'; code?: 'validation_failed' | 'image_too_large' | 'sort_too_broad' | 'filter_too_broad' | 'search_query_empty' } = {},
  ) {
    super('unprocessable', message, { code: options.code ?? 'validation_failed' })
    this.name = 'RuleViolation'
    this.location = options.location ?? 'body'
  }
}

// Texts clients see, named once.
export const NOT_AUTHENTICATED = 'Not authenticated'
export const NOT_ENOUGH_PERMISSIONS = 'Not enough permissions'
export const NOT_FOUND = 'Not Found'
export const SERVICE_UNAVAILABLE = 'Service unavailable'
export const TOO_MANY_REQUESTS = 'Too many requests'
export const REQUEST_BODY_TOO_LARGE = 'Request body too large'
export const FILE_TOO_LARGE = 'File too large'
export const FILE_MUST_BE_AN_IMAGE = 'File must be an image'
export const MALFORMED_MULTIPART = 'Malformed multipart body'
export const API_KEYS_REFUSED = 'API keys cannot be used here'
export const API_KEY_SCOPE_TOO_NARROW = 'API key scope does not allow this'
export const INVALID_OR_EXPIRED_TOKEN = 'Invalid or expired token'
export const INVALID_OR_EXPIRED_CODE = 'Invalid or expired code'

export const IMPERSONATION_READ_ONLY = 'A read-only impersonation cannot change anything'
export const IMPERSONATION_FORBIDDEN = "An impersonation cannot change the account's ways in, sessions or existence, nor start another"
export const impersonationReadOnly = () => new DomainError('forbidden', IMPERSONATION_READ_ONLY, { code: 'impersonation_read_only' })
export const impersonationForbidden = () => new DomainError('forbidden', IMPERSONATION_FORBIDDEN, { code: 'impersonation_forbidden' })

export const notAuthenticated = () => new DomainError('unauthenticated', NOT_AUTHENTICATED)
export const forbidden = () => new DomainError('forbidden', NOT_ENOUGH_PERMISSIONS)
export const serviceUnavailable = () => new DomainError('unavailable', SERVICE_UNAVAILABLE)
export const notFound = () => new DomainError('not_found', NOT_FOUND)
export const apiKeysRefused = () => new DomainError('forbidden', API_KEYS_REFUSED, { code: 'api_key_not_allowed' })
export const apiKeyScopeTooNarrow = () => new DomainError('forbidden', API_KEY_SCOPE_TOO_NARROW, { code: 'api_key_scope_insufficient' })
/** A mailed token (verification, reset, sign-in link) that is unknown, used or expired. */
export const invalidToken = () => new DomainError('invalid', INVALID_OR_EXPIRED_TOKEN, { code: 'invalid_token' })
/** A sign-in code (mailed, or handed over after a provider sign-in) that is wrong, used or expired. */
export const invalidCode = () => new DomainError('invalid', INVALID_OR_EXPIRED_CODE, { code: 'invalid_code' })
export const rateLimited = (retryAfterSeconds: number) => new DomainError('rate_limited', TOO_MANY_REQUESTS, { retryAfterSeconds })

/** Superusers only. */
export function assertSuperuser(actor: { isSuperuser: boolean }): void {
  if (!actor.isSuperuser) throw forbidden()
}
