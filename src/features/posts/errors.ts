// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const postsErrorCodes = {
  email_not_verified: 'The caller must verify their email address first (403).',
  post_not_found: 'No live post with this id that the caller may read (404; never 403, so a post the caller may not read stays unconfirmed).',
  post_slug_taken: "Another post of the same owner (its organization, or its author) has this slug (409).",
  sort_too_broad: 'A sort not read from an index (several keys; a count on PostgreSQL) of a list of more than 10,000 posts (422): narrow the list, or sort by one indexed key.',
  revision_not_found: "No revision with this id (404): a post keeps its newest POST_REVISIONS_KEPT.",
  search_query_empty: 'A search (`q`) with no word to look for: empty, only punctuation, or only excluded words (422).',
  post_trashed_by_another: 'Restoring a post from the trash that someone other than its author deleted (403): only a superuser may.',
  not_a_member: "The post's author, or the caller moving it, is not a member of the organization it would belong to (403).",
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof postsErrorCodes, string> {}
}
