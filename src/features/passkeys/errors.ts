// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const passkeysErrorCodes = {
  passkey_not_found: 'The caller has no passkey with this id (404).',
  passkey_exists: 'This authenticator\'s passkey is registered already (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof passkeysErrorCodes, string> {}
}
