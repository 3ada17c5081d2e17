// Where a request came from, as every slice receives it: the HTTP edge (src/api/common/client-info.ts)
// makes it, sessions, limits and the security log read it.

/** Where a request came from, as the log keeps it. */
export interface ClientInfo {
  ip: string | null
  userAgent: string | null
  /** The browser's device cookie (proof it signed in to an account before), when it sent one; never logged. */
  deviceToken?: string
  /** The browser's Accept-Language, when it sent one: a new account's language unless it says its own. */
  acceptLanguage?: string
  /** Who acts: the signed-in caller, or the superuser behind a support impersonation (the event's user may be someone else). */
  actorId?: number
}
