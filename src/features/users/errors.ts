// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const usersErrorCodes = {
  password_hashing_busy: 'More passwords are waiting to be checked than PASSWORD_HASH_QUEUE allows; `Retry-After` says when to try again (503).',
  user_not_found: 'No live user with this id (404).',
  email_taken: 'Another account holds this email (409).',
  username_taken: 'Another account holds this username (409).',
  user_not_deleted: 'The user is not soft-deleted, so there is nothing to restore (409).',
  incorrect_password: 'The current password is wrong (400).',
  account_banned: 'The account is banned: every way in (a password, a mailed link or code, a provider, a passkey, a refresh, an API key) is refused; `detail` is the message the superuser left for its owner, `banned_until` a time or "forever" (403).',
  account_pending_deletion: "The password is right, but the account's owner asked to delete it: until `deletion_due_at` the only way on is POST /api/v2/users/me/deletion/cancel (403).",
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof usersErrorCodes, string> {}
}
