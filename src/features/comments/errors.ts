// The error codes this slice adds to the table clients match on. A code once published keeps its meaning.

export const commentsErrorCodes = {
  comment_not_found: 'No comment with this id on a post the caller may read, or one the change cannot apply to (deleted, removed, or a reply to a reply) (404).',
  comments_closed: "The post takes no comments from the caller: a draft, its `comments` setting is closed, or `members` and the caller is not one (403).",
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof commentsErrorCodes, string> {}
}
