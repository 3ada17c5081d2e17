// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const signInMethodsErrorCodes = {
  last_sign_in_method: 'The identity is the last way to sign in to the account: set a password (a reset) or link another first (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof signInMethodsErrorCodes, string> {}
}
