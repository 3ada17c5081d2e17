// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const mailErrorCodes = {
  mail_preview_off: 'The outbox can be read only with MAIL_PREVIEW on, as it is in development (404).',
  mail_template_not_found: 'No mail template with this name (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof mailErrorCodes, string> {}
}
