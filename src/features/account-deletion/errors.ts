// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const accountDeletionErrorCodes = {
  deletion_not_pending: 'The account has no pending deletion to take back: it was taken back already, or it is not deleted (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof accountDeletionErrorCodes, string> {}
}
