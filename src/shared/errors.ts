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

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** For rate_limited: seconds until another attempt may succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
    this.name = 'DomainError'
  }
}

/** A field that passed its schema but breaks a rule (422, reported like a validation error). */
export class RuleViolation extends DomainError {
  constructor(
    readonly field: string,
    message: string,
    readonly type: string,
  ) {
    super('unprocessable', message)
    this.name = 'RuleViolation'
  }
}

// Texts clients see (DESIGN.md Errors), named once.
export const NOT_AUTHENTICATED = 'Not authenticated'
export const NOT_ENOUGH_PERMISSIONS = 'Not enough permissions'
export const NOT_FOUND = 'Not Found'
export const SERVICE_UNAVAILABLE = 'Service unavailable'
export const REQUEST_BODY_TOO_LARGE = 'Request body too large'
export const FILE_TOO_LARGE = 'File too large'
export const FILE_MUST_BE_AN_IMAGE = 'File must be an image'
export const MALFORMED_MULTIPART = 'Malformed multipart body'

export const notAuthenticated = () => new DomainError('unauthenticated', NOT_AUTHENTICATED)
export const forbidden = () => new DomainError('forbidden', NOT_ENOUGH_PERMISSIONS)
export const serviceUnavailable = () => new DomainError('unavailable', SERVICE_UNAVAILABLE)

/** Superusers only. */
export function assertSuperuser(actor: { isSuperuser: boolean }): void {
  if (!actor.isSuperuser) throw forbidden()
}
