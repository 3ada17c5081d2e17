// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const dataExportErrorCodes = {
  export_not_found: 'No data export of the caller with this id: it never was, or it expired and was deleted (404).',
  export_limit: 'A data export was asked for in the last 24 hours, or one is being built: `Retry-After` says when another may be asked for (429).',
  export_not_ready: 'The data export is still being built, or it failed: only a ready one is downloaded (409).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof dataExportErrorCodes, string> {}
}
