// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const mfaErrorCodes = {
  invalid_mfa_token: 'The `mfa_token` is unknown, used, expired, or spent by five wrong codes: sign in again (401).',
  invalid_mfa_code: 'The TOTP or recovery code is wrong or was already used (401 when signing in, 400 while signed in).',
  mfa_not_enabled: 'The account has no confirmed authenticator, or no pending one to confirm (409).',
  mfa_already_enabled: 'The account has a confirmed authenticator: turn it off before setting up another (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof mfaErrorCodes, string> {}
}
