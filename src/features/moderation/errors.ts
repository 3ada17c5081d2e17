// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const moderationErrorCodes = {
  cannot_ban_superuser: 'Superusers cannot be banned, and nobody bans themself: take the role away first (409).',
  cannot_impersonate: 'The user cannot be impersonated: superusers and banned users never are (409).',
  impersonation_not_found: 'No live impersonation to end (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof moderationErrorCodes, string> {}
}
