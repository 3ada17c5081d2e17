// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const webhooksErrorCodes = {
  webhook_not_found: 'No webhook with this id (404).',
  webhook_delivery_not_found: 'No webhook delivery with this id (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof webhooksErrorCodes, string> {}
}
