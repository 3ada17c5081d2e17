/** Whoever is acting: the authenticated caller, as services see them. */
export interface Actor {
  id: number
  isSuperuser: boolean
  /** Acting through an API key, which never manages keys, sessions, passwords or email. */
  viaApiKey?: boolean
  /** The superuser acting as this user (a support impersonation), who never changes its ways in. */
  impersonatedBy?: number
}
