// A typed client for the v2 API: openapi-fetch over the types openapi-typescript generates from
// the served OpenAPI document (schema.d.ts; `npm run openapi` regenerates it, CI checks it), the
// auth flow (sign up, log in by password, email, provider or passkey, second factors, refresh once
// on 401, resume, log out) so an app writes no token plumbing, the account's security (second
// factors, passkeys, sessions, reauthentication), uploads straight to the store, and the realtime
// stream. README.md shows it.
import type { Middleware } from 'openapi-fetch'
import createFetchClient from 'openapi-fetch'

import { ApiError, unwrap } from './errors.js'
import type { StreamOptions, Subscription } from './events.js'
import { subscribe } from './events.js'
import { allItems } from './paging.js'
import type { paths } from './paths.js'
import type { operations } from './schema.js'
import type { Session, SessionStore, SignOutReason } from './session.js'
import { SESSION_ENDING_CODES, SessionKeeper, toSession } from './session.js'
import type { PasskeyCeremonies } from './webauthn.js'
import { browserCeremonies } from './webauthn.js'

export type { FieldError } from './errors.js'
export { ApiError, unwrap } from './errors.js'
export type { ChangeEventMessage, StreamOptions, Subscription } from './events.js'
export { CHANGE_EVENT_TYPES } from './events.js'
export type { CursorPage } from './paging.js'
export { allItems } from './paging.js'
export type { paths } from './paths.js'
export type { components, operations } from './schema.js'
export type { Session, SessionStore, SignOutReason } from './session.js'
export { SESSION_ENDING_CODES } from './session.js'
export type { CredentialJSON, PasskeyCeremonies, WebauthnOptionsJSON } from './webauthn.js'
export { browserCeremonies } from './webauthn.js'

export type SignUpFields = operations['postSignup']['requestBody']['content']['application/json']
export type User = operations['getUsersMe']['responses'][200]['content']['application/json']
export type ThreadOrder = NonNullable<NonNullable<operations['getPostsByPostIdComments']['parameters']['query']>['order']>
export type ReactionTarget = 'post' | 'comment'
/** One of the service's REACTIONS (the default set, as its OpenAPI document names them). */
export type ReactionKind = operations['putPostsByPostIdReactionsByKind']['parameters']['path']['kind']
export type ReportFields = operations['postReports']['requestBody']['content']['application/json']
export type NotificationSettings = operations['patchUsersMeNotifications']['requestBody']['content']['application/json']
/** The token from a sign-in link, or the email and the 6-digit code from the mail. */
export type EmailLoginProof = operations['postLoginEmailConfirm']['requestBody']['content']['application/json']
/** A proof for POST /reauthenticate without a ceremony: `{password}`, `{code}`, `{recovery_code}` or `{email_code}`. */
export type ReauthenticationProof = { password: string } | { code: string } | { recovery_code: string } | { email_code: string }

/**
 * A door (sign-up, login, a mailed sign-in) may answer 400 `captcha_required` with
 * `error.captcha` (`provider`, `siteKey`): render that widget, then call again with its token.
 */
export interface DoorOptions {
  captchaToken?: string
}

const captchaHeaders = (options: DoorOptions): Record<string, string> => (options.captchaToken ? { 'x-captcha-token': options.captchaToken } : {})

export interface ClientOptions {
  /** The service's origin, e.g. https://api.example.com (paths start with /api/v2). */
  baseUrl: string
  /**
   * `include` (the default) sends and keeps the service's refresh cookie from a page on another
   * origin (the service must list that origin in CORS_ORIGINS); `same-origin` or `omit` never do.
   */
  credentials?: 'include' | 'same-origin' | 'omit'
  /** Keeps the session across reloads or restarts (optional; the cookie does it in browsers). */
  store?: SessionStore
  /** Called whenever the session starts, refreshes or ends (null); `auth.onChange` adds more listeners. */
  onSessionChange?: (session: Session | null, reason?: SignOutReason) => void
  /** How passkeys are created and used; in a browser, navigator.credentials by default. */
  passkeys?: PasskeyCeremonies
  fetch?: typeof globalThis.fetch
}

export interface ApiClientOptions {
  baseUrl: string
  /** Returns the current access token, if any, for the Authorization header (the app keeps its tokens). */
  accessToken?: () => string | undefined
  credentials?: 'include' | 'same-origin' | 'omit'
  fetch?: typeof globalThis.fetch
}

/** The typed API alone, for an app that keeps its tokens itself (createClient does it for you). */
export function createApiClient(options: ApiClientOptions) {
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = options.accessToken?.()
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`)
      return request
    },
  }
  api.use(bearer)
  return api
}

const PREFIX = '/api/v2'
/** Answers to these are about tokens themselves: a 401 from them is final. */
const TOKEN_PATHS = ['/login', '/login/mfa', '/refresh', '/logout', '/signup'].map((path) => PREFIX + path)

/** What the client needs of the Web Storage API. */
interface KeyValueStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** The PKCE verifier of a provider sign-in in flight: in sessionStorage in a browser (the page reloads on the way back), else in memory. */
function verifierKeeper() {
  const KEY = 'user-post-service:provider-sign-in-verifier'
  const storage = (globalThis as { sessionStorage?: KeyValueStorage }).sessionStorage
  let kept: string | undefined
  return {
    set(verifier: string) {
      kept = verifier
      storage?.setItem(KEY, verifier)
    },
    take(): string | undefined {
      const verifier = storage?.getItem(KEY) ?? kept
      storage?.removeItem(KEY)
      kept = undefined
      return verifier ?? undefined
    },
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export function createClient(options: ClientOptions) {
  const fetchImpl = options.fetch ?? ((input: Request) => globalThis.fetch(input))
  const verifiers = verifierKeeper()
  const credentials = options.credentials ?? 'include'
  const listeners = new Set<(session: Session | null, reason?: SignOutReason) => void>()
  const keeper = new SessionKeeper(options.store, (session, reason) => {
    options.onSessionChange?.(session, reason)
    for (const listener of listeners) listener(session, reason)
  })

  /** The reason an answer carries when it is one of the codes that end a session (a ban, a pending deletion). */
  async function endingReason(response: Response): Promise<SignOutReason | undefined> {
    if (response.status !== 403) return undefined
    const body = (await response.clone().json().catch(() => undefined)) as SignOutReason | undefined
    return body && SESSION_ENDING_CODES.includes(body.code) ? body : undefined
  }
  const api = createFetchClient<paths>({ baseUrl: options.baseUrl, credentials, fetch: fetchImpl })
  const ceremonies = () => options.passkeys ?? browserCeremonies()

  const isTokenPath = (url: string) => TOKEN_PATHS.some((path) => new URL(url).pathname.replace(/\/$/, '') === path)

  // In a browser without a store the cookie is the refresh token: every tab shares it, while the
  // one in this page's memory may be one that another tab has already rotated away.
  const refreshByCookie = !options.store && credentials === 'include' && 'document' in globalThis

  /** A new token pair from the refresh cookie or the stored refresh token; null (logged out) when refused. */
  async function refresh(): Promise<Session | null> {
    return keeper.refreshOnce(async () => {
      const stored = refreshByCookie ? null : await keeper.latest()
      const { data, response } = await api.POST('/api/v2/refresh', { body: stored ? { refresh_token: stored.refreshToken } : {} })
      if (response.status === 401) {
        const wasSignedIn = keeper.session !== null
        await keeper.set(null, wasSignedIn ? { code: 'not_authenticated', detail: 'The session ended: sign in again' } : undefined)
        return null
      }
      const ended = await endingReason(response)
      if (ended) {
        await keeper.set(null, ended)
        return null
      }
      const session = toSession(await unwrap({ data, response }))
      await keeper.set(session)
      return session
    })
  }

  // The first call after a reload picks the session up from the refresh cookie by itself (once:
  // a page that is signed out asks no more).
  let resumed: Promise<Session | null> | undefined
  const resumeOnce = () => (resumed ??= refresh().catch(() => null))

  // Copies of requests that may be sent again once, after a refresh (bodies can be read only once).
  const retryCopies = new WeakMap<Request, Request>()
  const tokens: Middleware = {
    async onRequest({ request }) {
      const stored = keeper.session ?? (await keeper.load())
      const session = stored ?? (refreshByCookie && !isTokenPath(request.url) ? await resumeOnce() : null)
      if (session && !request.headers.has('authorization') && !isTokenPath(request.url)) {
        request.headers.set('authorization', `Bearer ${session.accessToken}`)
        retryCopies.set(request, request.clone())
      }
      return request
    },
    async onResponse({ request, response }) {
      const copy = retryCopies.get(request)
      if (!copy) return undefined
      // The service ended the session (a ban, a pending deletion): the app hears it, with why.
      const ended = await endingReason(response)
      if (ended) {
        await keeper.set(null, ended)
        return undefined
      }
      if (response.status !== 401) return undefined
      // Refreshed by another request meanwhile: send this one again with the new token, no second refresh.
      const current = keeper.session
      const session = current && `Bearer ${current.accessToken}` !== copy.headers.get('authorization') ? current : await refresh()
      if (!session) return undefined
      copy.headers.set('authorization', `Bearer ${session.accessToken}`)
      return fetchImpl(copy)
    },
  }
  api.use(tokens)

  /** Holds the session an answer with tokens started. */
  const started = async (answer: Parameters<typeof toSession>[0]): Promise<Session> => {
    const session = toSession(answer)
    await keeper.set(session)
    return session
  }

  const auth = {
    /** The current session, or null. */
    get session(): Session | null {
      return keeper.session
    },
    /**
     * Calls `listener` whenever the session starts, refreshes or ends (null); when the service
     * ended it (a ban, a pending deletion, a refresh token that stopped working) with the reason.
     * Returns how to stop.
     */
    onChange(listener: (session: Session | null, reason?: SignOutReason) => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    /**
     * Logs in with a username or email and a password; throws ApiError (401 `invalid_credentials`,
     * 429 …). An account with a second factor throws 401 `mfa_required` with `error.mfa`: finish
     * with `finishSecondFactor(error.mfa.token, …)`. Email and provider sign-in throw the same.
     */
    async login(username: string, password: string, options: DoorOptions = {}): Promise<Session & { passwordBreached?: true }> {
      const answer = await unwrap(api.POST('/api/v2/login', { body: { username, password }, headers: captchaHeaders(options) }))
      const session = toSession(answer)
      await keeper.set(session)
      // The password works but is in known breaches: the app may ask for another.
      return answer.password_breached ? { ...session, passwordBreached: true } : session
    },
    /**
     * Mails a sign-in link and code if a live account uses `email` (the service answers alike for
     * every address). The link's page sends the browser on to `redirectTo`, an origin the
     * service's AUTH_REDIRECT_ORIGINS lists; call `resume()` there.
     */
    async requestEmailLogin(email: string, redirectTo?: string, options: DoorOptions = {}): Promise<void> {
      await unwrap(api.POST('/api/v2/login/email', { body: redirectTo === undefined ? { email } : { email, redirect_to: redirectTo }, headers: captchaHeaders(options) }))
    },
    /** Signs in with the link's token or the email and code; throws ApiError (400 `invalid_code` …). */
    async confirmEmailLogin(proof: EmailLoginProof): Promise<Session> {
      const session = toSession(await unwrap(api.POST('/api/v2/login/email/confirm', { body: proof })))
      await keeper.set(session)
      return session
    },
    /**
     * Where to send the browser to sign in with an identity provider (`GET /api/v2/auth/providers`
     * lists them): the provider sends it back to `redirectTo` with `code` (or `error`). The URL
     * carries a PKCE challenge whose verifier this client keeps (in sessionStorage in a browser),
     * so only this page's `finishProviderSignIn` can trade the code: one sent to someone else's
     * browser signs nobody in.
     */
    async providerSignInUrl(provider: string, redirectTo: string): Promise<string> {
      const verifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)))
      const challenge = base64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
      verifiers.set(verifier)
      const query = new URLSearchParams({ redirect_to: redirectTo, code_challenge: challenge, code_challenge_method: 'S256' })
      return `${options.baseUrl.replace(/\/+$/, '')}/api/v2/auth/${encodeURIComponent(provider)}/authorize?${query}`
    },
    /** On redirect_to's page: trades the `code` it received (with the kept verifier) for a session; throws ApiError (400 `invalid_code`). */
    async finishProviderSignIn(code: string): Promise<Session> {
      const verifier = verifiers.take()
      const session = toSession(await unwrap(api.POST('/api/v2/auth/token', { body: verifier === undefined ? { code } : { code, code_verifier: verifier } })))
      await keeper.set(session)
      return session
    },
    /** The second step of a sign-in that threw `mfa_required`: a code from the authenticator app, or a recovery code. */
    async finishSecondFactor(mfaToken: string, proof: { code: string } | { recovery_code: string }): Promise<Session> {
      return started(await unwrap(api.POST('/api/v2/login/mfa', { body: { mfa_token: mfaToken, ...proof } })))
    },
    /** The second step with a passkey (when `error.mfa.methods` lists `passkey`). */
    async finishSecondFactorWithPasskey(mfaToken: string): Promise<Session> {
      const options = await unwrap(api.POST('/api/v2/login/mfa/passkey/options', { body: { mfa_token: mfaToken } }))
      const answer = await ceremonies().get(options)
      return started(await unwrap(api.POST('/api/v2/login/mfa', { body: { mfa_token: mfaToken, passkey_response: answer as never } })))
    },
    /** Signs in with a passkey: a complete sign-in, never stepped up. Without `username`, any discoverable passkey. */
    async signInWithPasskey(username?: string): Promise<Session> {
      const options = await unwrap(api.POST('/api/v2/login/passkey/options', { body: username === undefined ? {} : { username } }))
      const answer = await ceremonies().get(options)
      return started(await unwrap(api.POST('/api/v2/login/passkey', { body: { response: answer as never } })))
    },
    /**
     * Proves who holds the session again, for 10 minutes of sensitive changes (a change that
     * threw 403 `reauthentication_required` lists in `error` what the account can give).
     */
    async reauthenticate(proof: ReauthenticationProof): Promise<{ fresh_until: string | null; methods: string[] }> {
      return unwrap(api.POST('/api/v2/reauthenticate', { body: proof }))
    },
    /** The same, with one of the account's passkeys. */
    async reauthenticateWithPasskey(): Promise<{ fresh_until: string | null; methods: string[] }> {
      const options = await unwrap(api.POST('/api/v2/reauthenticate/passkey/options'))
      return unwrap(api.POST('/api/v2/reauthenticate', { body: { passkey_response: (await ceremonies().get(options)) as never } }))
    },
    /** Mails a code for `reauthenticate({ email_code })`, to an account with no password, second factor or passkey. */
    async requestReauthenticationCode(): Promise<void> {
      await unwrap(api.POST('/api/v2/reauthenticate/email'))
    },
    /** Creates an account; logged in at once when the service answers with tokens (SIGNUP_LOGIN). */
    async signUp(fields: SignUpFields, options: DoorOptions = {}): Promise<User> {
      const { tokens, ...user } = await unwrap(api.POST('/api/v2/signup', { body: fields, headers: captchaHeaders(options) }))
      if (tokens) await keeper.set(toSession(tokens))
      return user
    },
    /** After a reload or restart: a session from the stored refresh token or the cookie, or null. */
    async resume(): Promise<Session | null> {
      return refresh()
    },
    refresh,
    /** Ends the session on the service (and its cookie), then forgets it here. */
    async logout(): Promise<void> {
      const session = keeper.session
      if (session) {
        await api.POST('/api/v2/logout', {
          body: { refresh_token: session.refreshToken },
          headers: { authorization: `Bearer ${session.accessToken}` },
        })
      }
      await keeper.set(null)
    },
  }

  /** The signed-in account's security (second factors, passkeys, sessions) and its own data (export, deletion). */
  const account = {
    mfa: {
      status: () => unwrap(api.GET('/api/v2/users/me/mfa')),
      /** A new authenticator secret and its QR code (`qr_code`, for an <img src>): pending until `confirmTotp`. */
      startTotp: () => unwrap(api.POST('/api/v2/users/me/mfa/totp')),
      /** Turns the authenticator on with a code from it; the ten recovery codes, shown this once. */
      confirmTotp: async (code: string) => (await unwrap(api.POST('/api/v2/users/me/mfa/totp/confirm', { body: { code } }))).recovery_codes,
      /** Turns it off, for a current code or a recovery code. */
      disableTotp: async (code: string) => void (await unwrap(api.DELETE('/api/v2/users/me/mfa/totp', { body: { code } }))),
      /** A new set of recovery codes, for a current code; the old set dies. */
      newRecoveryCodes: async (code: string) => (await unwrap(api.POST('/api/v2/users/me/mfa/recovery-codes', { body: { code } }))).recovery_codes,
    },
    passkeys: {
      list: () => unwrap(api.GET('/api/v2/users/me/passkeys')),
      /** Creates a passkey on this device (the browser asks the person) and registers it under `name`. */
      async register(name: string) {
        const options = await unwrap(api.POST('/api/v2/users/me/passkeys/options'))
        const answer = await ceremonies().create(options)
        return unwrap(api.POST('/api/v2/users/me/passkeys', { body: { response: answer as never, name } }))
      },
      rename: (id: string, name: string) => unwrap(api.PATCH('/api/v2/users/me/passkeys/{passkey_id}', { params: { path: { passkey_id: id } }, body: { name } })),
      remove: async (id: string) => void (await unwrap(api.DELETE('/api/v2/users/me/passkeys/{passkey_id}', { params: { path: { passkey_id: id } } }))),
    },
    sessions: {
      /** The account's live sessions, newest first; `current` marks this one. */
      list: () => unwrap(api.GET('/api/v2/sessions')),
      end: async (id: string) => void (await unwrap(api.DELETE('/api/v2/sessions/{session_id}', { params: { path: { session_id: id } } }))),
      /** Ends every session but this one. */
      endOthers: async () => void (await unwrap(api.DELETE('/api/v2/sessions'))),
    },
    /** The account's own data: a copy of it, and its deletion (asking for either needs a fresh session: on 403 reauthentication_required, reauthenticate and ask again). */
    data: {
      /** Asks for a ZIP of everything the account holds; the owner is mailed a link when it is ready (one a day: 429 export_limit). */
      requestExport: () => unwrap(api.POST('/api/v2/users/me/export')),
      /** The latest exports, newest first, with their progress. */
      exports: () => unwrap(api.GET('/api/v2/users/me/exports')),
      /** A single-use link (48 hours) that downloads a ready export: an <a href> or window.location. */
      downloadLink: async (id: number) => (await unwrap(api.POST('/api/v2/users/me/exports/{export_id}/link', { params: { path: { export_id: id } } }))).url,
      /** Deletes the account after the grace period (it can be taken back until `deletion_due_at`); every session ends. */
      /** Deletes the account (a grace period follows): every session ends, this one too, and `onChange` hears `account_pending_deletion`. */
      deleteAccount: async () => {
        const scheduled = await unwrap(api.DELETE('/api/v2/users/me'))
        await keeper.set(null, { code: 'account_pending_deletion', detail: `The account will be deleted on ${scheduled.deletion_due_at}`, deletion_due_at: scheduled.deletion_due_at })
        return scheduled
      },
    },
  }

  const base = options.baseUrl.replace(/\/+$/, '')
  const events = {
    /**
     * Follows the realtime stream (a browser's EventSource, or one passed in): post events for
     * anyone, the signed-in user's own events, everything for superusers. Reconnects by itself
     * with a new ticket, resuming after the last event received.
     */
    subscribe(streamOptions: StreamOptions): Subscription {
      const ticket = async () => {
        if (!(keeper.session ?? (await keeper.load()) ?? (refreshByCookie ? await resumeOnce() : null))) return null
        return (await unwrap(api.POST('/api/v2/events/ticket'))).ticket
      }
      return subscribe(streamOptions, ticket, (query) => `${base}/api/v2/events/stream${query.size > 0 ? `?${query}` : ''}`)
    },
  }
  const files = {
    /**
     * Sends a file (a browser's File or any Blob) straight to the store: asks the service for a
     * target, PUTs the bytes there without credentials (a presigned URL on S3, the service's own
     * signed URL on local disk), and completes; answers the file. The service sniffs the type
     * from the bytes: 415 `unsupported_file_type` for one it does not take.
     */
    async upload(file: Blob, name = (file as Blob & { name?: string }).name ?? 'file') {
      const contentType = file.type.split(';')[0] || 'application/octet-stream'
      const target = await unwrap(api.POST('/api/v2/uploads', { body: { name, size: file.size, content_type: contentType } }))
      const put = await fetchImpl(new Request(target.url, { method: target.method, headers: target.headers, body: file, credentials: 'omit' }))
      if (!put.ok) {
        // The service's own URL answers its usual error body; a store answers XML, named here `upload_failed`.
        const body = (await put.json().catch(() => ({}))) as { code?: string; detail?: string }
        throw new ApiError(put.status, body.code ?? 'upload_failed', body.detail ?? `The store refused the upload (${put.status})`)
      }
      return unwrap(api.POST('/api/v2/uploads/{upload_id}/complete', { params: { path: { upload_id: target.upload_id } } }))
    },
    /** The signed-in user's storage: `{bytes, files, limit_bytes, limit_files}`. */
    usage: () => unwrap(api.GET('/api/v2/users/me/usage')),
    remove: async (id: number) => void (await unwrap(api.DELETE('/api/v2/files/{file_id}', { params: { path: { file_id: id } } }))),
  }

  /** A post's conversation: its comments and replies, reactions, and the signed-in user's blocks and reports. */
  const conversation = {
    /** Every thread of the post (a top-level comment with its first `replies`), oldest or newest first, fetching page after page as they are used. */
    threads: (postId: number, order: ThreadOrder = 'oldest', limit = 50) =>
      allItems((cursor) => unwrap(api.GET('/api/v2/posts/{post_id}/comments', { params: { path: { post_id: postId }, query: { order, limit, ...(cursor === undefined ? {} : { cursor }) } } }))),
    /** Every reply to a top-level comment, oldest first. */
    replies: (commentId: number, limit = 50) =>
      allItems((cursor) => unwrap(api.GET('/api/v2/comments/{comment_id}/replies', { params: { path: { comment_id: commentId }, query: { limit, ...(cursor === undefined ? {} : { cursor }) } } }))),
    get: (commentId: number) => unwrap(api.GET('/api/v2/comments/{comment_id}', { params: { path: { comment_id: commentId } } })),
    /** Comments on the post, or replies to `parentId` (a reply to a reply joins its thread). */
    comment: (postId: number, text: string, parentId?: number) =>
      unwrap(api.POST('/api/v2/posts/{post_id}/comments', { params: { path: { post_id: postId } }, body: { text, ...(parentId === undefined ? {} : { parent_id: parentId }) } })),
    edit: (commentId: number, text: string) => unwrap(api.PATCH('/api/v2/comments/{comment_id}', { params: { path: { comment_id: commentId } }, body: { text } })),
    /** Its author's delete: a tombstone keeps the thread's shape, the words go. */
    remove: async (commentId: number) => void (await unwrap(api.DELETE('/api/v2/comments/{comment_id}', { params: { path: { comment_id: commentId } } }))),
    /** A moderator's (the post's author, its organization's admins): hidden from all but its author and the moderators, with the reason. */
    hide: (commentId: number, reason: string) => unwrap(api.POST('/api/v2/comments/{comment_id}/hide', { params: { path: { comment_id: commentId } }, body: { reason } })),
    unhide: (commentId: number) => unwrap(api.POST('/api/v2/comments/{comment_id}/unhide', { params: { path: { comment_id: commentId } } })),
    /** Reacts (once per kind: asking again changes nothing); answers the target's `reaction_counts` and the caller's `my_reactions`. */
    react: (target: ReactionTarget, id: number, kind: ReactionKind) =>
      target === 'post'
        ? unwrap(api.PUT('/api/v2/posts/{post_id}/reactions/{kind}', { params: { path: { post_id: id, kind } } }))
        : unwrap(api.PUT('/api/v2/comments/{comment_id}/reactions/{kind}', { params: { path: { comment_id: id, kind } } })),
    unreact: (target: ReactionTarget, id: number, kind: ReactionKind) =>
      target === 'post'
        ? unwrap(api.DELETE('/api/v2/posts/{post_id}/reactions/{kind}', { params: { path: { post_id: id, kind } } }))
        : unwrap(api.DELETE('/api/v2/comments/{comment_id}/reactions/{kind}', { params: { path: { comment_id: id, kind } } })),
    /** The signed-in user's blocks: a blocked person's posts and comments leave their lists, and they cannot answer or react to the blocker's. */
    blocks: {
      list: () => unwrap(api.GET('/api/v2/users/me/blocks')),
      block: (userId: number) => unwrap(api.POST('/api/v2/users/me/blocks', { body: { user_id: userId } })),
      unblock: async (userId: number) => void (await unwrap(api.DELETE('/api/v2/users/me/blocks/{user_id}', { params: { path: { user_id: userId } } }))),
    },
    /** Reports a post, a comment or a user to the moderators (one open report per reporter and target: 409 report_exists); the outcome comes by mail. */
    report: (report: ReportFields) => unwrap(api.POST('/api/v2/reports', { body: report })),
    /** Whether a reply to the user's posts and comments mails them (it always reaches their stream). */
    notifications: {
      get: () => unwrap(api.GET('/api/v2/users/me/notifications')),
      set: (settings: NotificationSettings) => unwrap(api.PATCH('/api/v2/users/me/notifications', { body: settings })),
    },
  }

  return { api, auth, account, events, files, conversation }
}

export type Client = ReturnType<typeof createClient>
