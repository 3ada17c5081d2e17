// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const orgsErrorCodes = {
  org_not_found: 'No organization with this id or slug that the caller belongs to (404; never 403, so a non-member learns nothing).',
  org_role_required: "The caller's role in the organization does not allow this; `detail` names the role it takes (403).",
  slug_taken: 'Another organization has this slug (409).',
  org_limit: 'The caller owns as many organizations as ORGS_PER_USER allows (403).',
  last_owner: 'The organization would be left without an owner: make another member an owner first (409).',
  member_not_found: 'The user is not a member of the organization (404).',
  already_member: 'The invited address belongs to a member of the organization (409).',
  invitation_not_found: 'No pending invitation with this id in the organization, or addressed to the caller (404).',
  invitation_email_mismatch: "The invitation is addressed to another email than the caller's verified one: sign in with that account, or verify the address (403). The invitation stays pending.",
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof orgsErrorCodes, string> {}
}
