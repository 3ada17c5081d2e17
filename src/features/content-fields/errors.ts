// The error codes this slice adds to the table clients match on.

export const contentFieldsErrorCodes = {
  field_not_writable: 'The write names a custom field above the caller\'s level: server fields are written by superusers only; `detail` names the field (403).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof contentFieldsErrorCodes, string> {}
}
