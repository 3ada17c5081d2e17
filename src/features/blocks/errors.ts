// The error codes this slice adds to the table clients match on. A code once published keeps its meaning.

export const blocksErrorCodes = {
  blocked: "The post's or comment's author does not take comments or reactions from the caller (403). It names nobody.",
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof blocksErrorCodes, string> {}
}
