// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const eventStreamsErrorCodes = {
  invalid_stream_ticket: 'The event stream ticket is unknown, used, expired, or its session has ended: ask for another (401).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof eventStreamsErrorCodes, string> {}
}
