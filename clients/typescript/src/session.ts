// Tokens, so an app writes no token plumbing: log in (or sign up), send the access token with
// every request, refresh it once when an answer is 401, resume after a reload, log out.
// In a browser the refresh token also lives in the service's HttpOnly cookie, so a reloaded page
// resumes with `credentials: 'include'` and nothing stored by the app; elsewhere (Node, React
// Native) keep the refresh token with `store`.

export interface Session {
  accessToken: string
  refreshToken: string
  /** When the access token expires, in milliseconds since the epoch. */
  expiresAt: number
}

/**
 * Why a session ended when the service ended it: `account_banned` (with `banned_until` and the
 * message in `detail`), `account_pending_deletion` (with `deletion_due_at`), or
 * `not_authenticated` (its refresh token no longer works: revoked, expired, signed out elsewhere).
 * A logout of the app's own has none.
 */
export interface SignOutReason {
  code: string
  detail: string
  [field: string]: unknown
}

/** The service's codes that end the session they answer on: the client signs out with the reason. */
export const SESSION_ENDING_CODES: readonly string[] = ['account_banned', 'account_pending_deletion']

/** Where a session outlives the page or the process: localStorage, a file, a keychain. Optional. */
export interface SessionStore {
  load(): Session | null | Promise<Session | null>
  save(session: Session | null): void | Promise<void>
}

export interface TokenAnswer {
  access_token: string
  refresh_token: string
  expires_in: number
}

export const toSession = (answer: TokenAnswer): Session => ({
  accessToken: answer.access_token,
  refreshToken: answer.refresh_token,
  expiresAt: Date.now() + answer.expires_in * 1000,
})

/** The current session, and one refresh at a time however many requests ask for it. */
export class SessionKeeper {
  private current: Session | null = null
  private refreshing: Promise<Session | null> | null = null
  private loaded = false

  constructor(
    private readonly store: SessionStore | undefined,
    private readonly onChange: ((session: Session | null, reason?: SignOutReason) => void) | undefined,
  ) {}

  get session(): Session | null {
    return this.current
  }

  async load(): Promise<Session | null> {
    if (!this.loaded && this.store) this.current = (await this.store.load()) ?? this.current
    this.loaded = true
    return this.current
  }

  /**
   * The session as the store has it now, before a refresh: another tab or process sharing the
   * store may have rotated the refresh token since, and presenting the old one would end the
   * session for everyone (the service treats a reused refresh token as stolen).
   */
  async latest(): Promise<Session | null> {
    if (this.store) this.current = await this.store.load()
    this.loaded = true
    return this.current
  }

  /** Holds `session`; null ends it, with the service's `reason` when the service ended it. */
  async set(session: Session | null, reason?: SignOutReason): Promise<void> {
    this.current = session
    this.loaded = true
    await this.store?.save(session)
    this.onChange?.(session, reason)
  }

  /** Runs `refresh` unless one is running already, whose result every caller then shares. */
  refreshOnce(refresh: () => Promise<Session | null>): Promise<Session | null> {
    this.refreshing ??= refresh().finally(() => {
      this.refreshing = null
    })
    return this.refreshing
  }
}
