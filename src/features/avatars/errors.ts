// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const avatarsErrorCodes = {
  file_not_image: 'The upload is not a PNG, JPEG, GIF or WebP image (400).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof avatarsErrorCodes, string> {}
}
