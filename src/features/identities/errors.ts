// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const identitiesErrorCodes = {
  invalid_state: 'A provider sign-in came back with a state that is unknown, used, expired or started in another browser (400).',
  invalid_link_ticket: 'The link ticket is unknown, used, expired, for another provider, or opened in another browser than the one that asked for it (400).',
  identity_not_found: 'The caller has no linked identity with this id (404).',
  provider_not_found: 'No sign-in provider of that name is configured (404).',
  provider_unavailable: 'The sign-in provider is configured but has not answered its discovery yet; the service keeps trying, and `Retry-After` says when to ask again (503).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof identitiesErrorCodes, string> {}
}
