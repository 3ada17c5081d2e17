// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const tiersErrorCodes = {
  tier_not_found: 'No tier with this id (404).',
  tier_exists: 'A tier with this name exists (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof tiersErrorCodes, string> {}
}
