// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const reauthenticationErrorCodes = {
  invalid_code: 'A sign-in code (mailed, or handed over after a provider sign-in) is wrong, used or expired, or too many wrong ones were tried (400).',
  reauthentication_required: 'This adds a way in or changes a second factor, and the session has not proven who holds it in the last 10 minutes: POST /api/v2/reauthenticate with one of the proofs `methods` lists, then try again (403).',
  reauthentication_method_unavailable: 'The account cannot prove itself that way (a password on an account with a second factor, a mailed code on one with a password): use one of `methods` (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof reauthenticationErrorCodes, string> {}
}
