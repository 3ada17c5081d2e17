// The error codes this slice adds to the table clients match on.

export const contentFieldsErrorCodes = {
  field_not_writable: 'The write names a custom field above the caller\'s level: server fields are written by superusers only; `detail` names the field (403).',
  invalid_filter: 'The `filter` of a list does not parse, names a column or field it may not (an undeclared one, or a field above the caller\'s level), compares with the wrong type, or is too large; `detail` says where (400).',
  filter_too_broad: 'A filter that no index narrows (for posts no author_id = or org_id = in it and no author or organization list; for users no id = or username =; for organizations no id = or slug =) of a list of more than 10,000 records (422): narrow the list.',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof contentFieldsErrorCodes, string> {}
}
