// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const authErrorCodes = {
  invalid_credentials: 'The username or password is wrong, or the account cannot log in (401).',
  mfa_required: 'The first factor was right and the account has a second one: finish with POST /login/mfa and the `mfa_token` (401).',
  session_not_found: 'No live session of the caller with this id (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof authErrorCodes, string> {}
}
