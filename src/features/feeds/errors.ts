// The error codes this slice adds to the table clients match on.

export const feedsErrorCodes = {
  feed_not_found: 'No user with this username, or no organization with this slug, to make a feed of (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof feedsErrorCodes, string> {}
}
