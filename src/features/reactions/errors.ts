// The error codes this slice adds to the table clients match on. A code once published keeps its meaning.

export const reactionsErrorCodes = {
  not_reactable: 'Reactions are taken on published posts and visible comments only (403).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof reactionsErrorCodes, string> {}
}
