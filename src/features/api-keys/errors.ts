// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const apiKeysErrorCodes = {
  api_key_not_found: 'No live API key of this user with this id (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof apiKeysErrorCodes, string> {}
}
