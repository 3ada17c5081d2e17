// The error codes this slice adds to the table clients match on. A code once published keeps its meaning.

export const reportsErrorCodes = {
  report_exists: 'The caller has an open report on this post, comment or user already (409).',
  report_not_found: 'No report with this id in the caller’s queue (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof reportsErrorCodes, string> {}
}
