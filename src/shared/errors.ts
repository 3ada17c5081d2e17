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
 * Every machine-readable `code` an error body can carry, with what it means. Clients match on
 * these, never on `detail`; a code once published keeps its meaning. docs/api.md and both
 * OpenAPI documents list this table (a test holds them to it).
 */
export const ERROR_CODES = {
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
  password_hashing_busy: 'More passwords are waiting to be checked than PASSWORD_HASH_QUEUE allows; `Retry-After` says when to try again (503).',
  version_sunset: 'This API version has passed its sunset date (410).',
  internal_error: 'An unexpected failure; the server logged it with the request id (500).',
  // Authentication and permissions
  not_authenticated: 'The token or API key is missing, malformed, expired or revoked (401).',
  invalid_credentials: 'The username or password is wrong, or the account cannot log in (401).',
  forbidden: 'The caller may not do this (403).',
  api_key_not_allowed: 'This route refuses API keys: use a login token (403).',
  api_key_scope_insufficient: "The API key's scopes do not allow this method (403).",
  cross_site_refused: 'A browser sent this request from another site, and this route takes none (403).',
  email_not_verified: 'The caller must verify their email address first (403).',
  conflict: 'The change conflicts with an existing record (409).',
  // Users and account
  user_not_found: 'No live user with this id (404).',
  email_taken: 'Another account holds this email (409).',
  username_taken: 'Another account holds this username (409).',
  user_not_deleted: 'The user is not soft-deleted, so there is nothing to restore (409).',
  invalid_token: 'The verification, password-reset or sign-in token is invalid, used or expired (400).',
  invalid_code: 'A sign-in code (mailed, or handed over after a provider sign-in) is wrong, used or expired, or too many wrong ones were tried (400).',
  invalid_redirect: 'A `redirect_to` is not on AUTH_REDIRECT_ORIGINS (400).',
  invalid_state: 'A provider sign-in came back with a state that is unknown, used, expired or started in another browser (400).',
  invalid_link_ticket: 'The link ticket is unknown, used, expired, for another provider, or opened in another browser than the one that asked for it (400).',
  identity_not_found: 'The caller has no linked identity with this id (404).',
  last_sign_in_method: 'The identity is the last way to sign in to the account: set a password (a reset) or link another first (409).',
  provider_not_found: 'No sign-in provider of that name is configured (404).',
  provider_unavailable: 'The sign-in provider is configured but has not answered its discovery yet; the service keeps trying, and `Retry-After` says when to ask again (503).',
  incorrect_password: 'The current password is wrong (400).',
  // Second factors
  mfa_required: 'The first factor was right and the account has a second one: finish with POST /login/mfa and the `mfa_token` (401).',
  invalid_mfa_token: 'The `mfa_token` is unknown, used, expired, or spent by five wrong codes: sign in again (401).',
  invalid_mfa_code: 'The TOTP or recovery code is wrong or was already used (401 when signing in, 400 while signed in).',
  mfa_not_enabled: 'The account has no confirmed authenticator, or no pending one to confirm (409).',
  mfa_already_enabled: 'The account has a confirmed authenticator: turn it off before setting up another (409).',
  invalid_passkey: 'The passkey response does not verify, answers no live challenge of its kind, or its signature counter went backwards (a cloned authenticator): 401 when signing in, 400 when registering.',
  passkey_not_found: 'The caller has no passkey with this id (404).',
  passkey_exists: 'This authenticator\'s passkey is registered already (409).',
  mfa_enrolment_required: 'A second factor is required first: REQUIRE_MFA_FOR_SUPERUSERS for a superuser, or an organization that requires one of its members; enrol at /users/me/mfa (403).',
  session_not_found: 'No live session of the caller with this id (404).',
  reauthentication_required: 'This adds a way in or changes a second factor, and the session has not proven who holds it in the last 10 minutes: POST /api/v2/reauthenticate with one of the proofs `methods` lists, then try again (403).',
  reauthentication_method_unavailable: 'The account cannot prove itself that way (a password on an account with a second factor, a mailed code on one with a password): use one of `methods` (409).',
  // Posts, tiers, limits, keys, avatars
  post_not_found: 'No live post with this id that the caller may read (404; never 403, so a post the caller may not read stays unconfirmed).',
  not_a_member: "The post's author, or the caller moving it, is not a member of the organization it would belong to (403).",
  tier_not_found: 'No tier with this id (404).',
  tier_exists: 'A tier with this name exists (409).',
  rate_limit_rule_not_found: 'No rate-limit rule with this id (404).',
  api_key_not_found: 'No live API key of this user with this id (404).',
  file_not_image: 'The upload is not a PNG, JPEG, GIF or WebP image (400).',
  malformed_multipart: 'The multipart body cannot be read (400).',
  mail_preview_off: 'The outbox can be read only with MAIL_PREVIEW on, as it is in development (404).',
  mail_template_not_found: 'No mail template with this name (404).',
  invalid_stream_ticket: 'The event stream ticket is unknown, used, expired, or its session has ended: ask for another (401).',
  webhook_not_found: 'No webhook with this id (404).',
  webhook_delivery_not_found: 'No webhook delivery with this id (404).',
  // Abuse protection
  captcha_required: 'This door asks for a CAPTCHA now (always, or because risk is raised): render the widget with `provider` and `site_key` and send its token as `X-Captcha-Token` or `captcha_token` (400).',
  captcha_failed: 'The CAPTCHA token was refused, used already or expired: solve the widget again (400; carries `provider` and `site_key`).',
  password_breached: 'The password appears in known data breaches (`breach_count` says how often): choose another (400).',
  email_domain_blocked: 'Addresses at this domain cannot be used here (400). The same answer for every reason a domain is blocked.',
  email_domain_rule_not_found: 'No email domain rule for this domain (404).',
  // Files
  file_not_found: 'No file with this id that the caller may read, or no such variant of it (404; never 403).',
  range_not_satisfiable: 'The Range header asks for bytes the file does not have; `Content-Range` gives its size (416).',
  upload_not_found: 'No upload in progress with this id started by the caller: it was completed, abandoned or has expired (404).',
  upload_url_invalid: 'The upload URL is not one the service signed, or it has expired (403).',
  upload_incomplete: 'The store does not hold all the bytes the upload declared (yet): send them again, then complete (409).',
  unsupported_file_type: "The file's content is of a type FILE_TYPES does not allow, or is not what its name or declared type says (415).",
  image_too_large: 'The image has more pixels than FILE_MAX_PIXELS allows; it was not decoded (422).',
  quota_exceeded: "The caller's storage quota (bytes or files, their tier's or the default) leaves no room for this upload (413).",
  file_attached_elsewhere: 'A file in `attachments` belongs to another post: detach it there first (409).',
  // Moderation
  account_banned: 'The account is banned: every way in (a password, a mailed link or code, a provider, a passkey, a refresh, an API key) is refused; `detail` is the message the superuser left for its owner, `banned_until` a time or "forever" (403).',
  cannot_ban_superuser: 'Superusers cannot be banned, and nobody bans themself: take the role away first (409).',
  cannot_impersonate: 'The user cannot be impersonated: superusers and banned users never are (409).',
  impersonation_read_only: 'A read-only impersonation may only read: every method but GET and HEAD is refused (403).',
  impersonation_forbidden: "An impersonation never changes a way into the account (password, email, second factors, passkeys, identities, API keys, sessions), exports or deletes it, or starts another impersonation (403).",
  impersonation_not_found: 'No live impersonation to end (404).',
  // Privacy
  deletion_not_pending: 'The account has no pending deletion to take back: it was taken back already, or it is not deleted (409).',
  export_not_found: 'No data export of the caller with this id: it never was, or it expired and was deleted (404).',
  export_limit: 'A data export was asked for in the last 24 hours, or one is being built: `Retry-After` says when another may be asked for (429).',
  export_not_ready: 'The data export is still being built, or it failed: only a ready one is downloaded (409).',
  account_pending_deletion: "The password is right, but the account's owner asked to delete it: until `deletion_due_at` the only way on is POST /api/v2/users/me/deletion/cancel (403).",
  // Organizations
  org_not_found: 'No organization with this id or slug that the caller belongs to (404; never 403, so a non-member learns nothing).',
  org_role_required: "The caller's role in the organization does not allow this; `detail` names the role it takes (403).",
  slug_taken: 'Another organization has this slug (409).',
  org_limit: 'The caller owns as many organizations as ORGS_PER_USER allows (403).',
  last_owner: 'The organization would be left without an owner: make another member an owner first (409).',
  member_not_found: 'The user is not a member of the organization (404).',
  already_member: 'The invited address belongs to a member of the organization (409).',
  invitation_not_found: 'No pending invitation with this id in the organization, or addressed to the caller (404).',
  invitation_email_mismatch: "The invitation is addressed to another email than the caller's verified one: sign in with that account, or verify the address (403). The invitation stays pending.",
} as const

export type ErrorCode = keyof typeof ERROR_CODES

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
    /** `location` defaults to the body; `code`, to validation_failed (a rule with a code of its own: image_too_large). */
    options: { location?: 'body' | 'query'; code?: 'validation_failed' | 'image_too_large' } = {},
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
