// The console's only way to the service: the public v2 API through the typed client
// (clients/typescript). The access token lives in this module's memory and nowhere else; the
// refresh token is the HttpOnly cookie the login sets, so a reload signs in again by refreshing.
import type { paths } from '../../clients/typescript/src/index.js'
import { createApiClient } from '../../clients/typescript/src/index.js'

/** The JSON a path and method answer with on success. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } }
}
  ? T
  : never

export type ManagedUser = Answer<'/api/v2/admin/users/{user_id}', 'get'>
export type Overview = Answer<'/api/v2/admin/overview', 'get'>
export type Tier = Answer<'/api/v2/tiers/{tier_id}', 'get'>
export type RateLimitRule = Answer<'/api/v2/tiers/{tier_id}/rate-limits', 'get'>[number]
export type SecurityEvent = Answer<'/api/v2/security-events', 'get'>['data'][number]
export type QueuedMail = Answer<'/api/v2/admin/mail', 'get'>['data'][number]
export type Webhook = Answer<'/api/v2/admin/webhooks/{webhook_id}', 'get'>
export type Org = Answer<'/api/v2/admin/orgs/{org_id}', 'get'>
export type WebhookDelivery = Answer<'/api/v2/admin/webhooks/{webhook_id}/deliveries', 'get'>['data'][number]

export const NOT_A_SUPERUSER = 'This account is not a superuser. The admin console is for superusers only.'

export const MFA_ENROLMENT_REQUIRED =
  'This superuser has no second factor, and the service requires one for superusers (REQUIRE_MFA_FOR_SUPERUSERS). Set up an authenticator app for the account, then sign in again.'

/** What the API said went wrong (its `detail` and `code`), or why it could not be asked. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message)
  }
}

/** A password that was right for an account with a second factor: the token to finish with, and how. */
export interface SecondFactorDue {
  mfaToken: string
  methods: string[]
}

/** The browser's passkey for WebAuthn request options (JSON in, JSON out). */
async function passkeyAnswer(options: unknown) {
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options as PublicKeyCredentialRequestOptionsJSON) })
  if (!(credential instanceof PublicKeyCredential)) throw new ApiError(0, 'No passkey was chosen.')
  return credential.toJSON() as never
}

let accessToken: string | undefined
let refreshing: Promise<boolean> | undefined
let signedOut: () => void = () => {}

export const client = createApiClient({ baseUrl: location.origin, accessToken: () => accessToken })

/** Called when the session ends on its own (refresh refused): the app shows the sign-in form. */
export function onSignedOut(listener: () => void): void {
  signedOut = listener
}

interface Outcome<T> {
  data?: T
  error?: unknown
  response: Response
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

function detailOf(error: unknown, response: Response): string {
  if (typeof error === 'object' && error !== null && 'detail' in error && typeof error.detail === 'string') return error.detail
  return `The service answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
}

async function attempt<T>(run: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await run()
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.')
  }
}

/**
 * A new access token from the refresh cookie. One at a time: the refresh token rotates, and two
 * refreshes with the same one would look like token theft and end the session.
 */
function refresh(): Promise<boolean> {
  refreshing ??= client
    .POST('/api/v2/refresh', { body: {} })
    .then(({ data }) => {
      accessToken = data?.access_token
      return accessToken !== undefined
    })
    .catch(() => false)
    .finally(() => {
      refreshing = undefined
    })
  return refreshing
}

/** Runs one API call: refreshes once on a 401 and retries; any other failure is an ApiError with the API's detail. */
export async function call<T>(run: () => Promise<Outcome<T>>): Promise<T> {
  let outcome = await attempt(run)
  if (outcome.response.status === 401 && accessToken !== undefined) {
    if (await refresh()) outcome = await attempt(run)
    else {
      accessToken = undefined
      signedOut()
    }
  }
  if (!outcome.response.ok) throw new ApiError(outcome.response.status, detailOf(outcome.error, outcome.response), codeOf(outcome.error))
  return outcome.data as T
}

/** Runs one API call with another token (a support impersonation's): no refresh, any failure an ApiError. */
export async function callOnce<T>(run: () => Promise<Outcome<T>>): Promise<T> {
  const outcome = await attempt(run)
  if (!outcome.response.ok) throw new ApiError(outcome.response.status, detailOf(outcome.error, outcome.response), codeOf(outcome.error))
  return outcome.data as T
}

/** Refuses (and ends the session of) anyone but a superuser. */
async function requireSuperuser(): Promise<void> {
  try {
    await call(() => client.GET('/api/v2/admin/overview'))
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      await signOut()
      throw new ApiError(403, error.code === 'mfa_enrolment_required' ? MFA_ENROLMENT_REQUIRED : NOT_A_SUPERUSER, error.code)
    }
    throw error
  }
}

/** Signs in with a password; when the account has a second factor, answers what finishSignIn needs. */
export async function signIn(username: string, password: string): Promise<SecondFactorDue | undefined> {
  const { data, error, response } = await attempt(() => client.POST('/api/v2/login', { body: { username, password } }))
  if (codeOf(error) === 'mfa_required' && typeof error === 'object' && error !== null && 'mfa_token' in error && typeof error.mfa_token === 'string') {
    return { mfaToken: error.mfa_token, methods: 'methods' in error && Array.isArray(error.methods) ? error.methods.map(String) : [] }
  }
  if (!data) throw new ApiError(response.status, detailOf(error, response), codeOf(error))
  accessToken = data.access_token
  await requireSuperuser()
  return undefined
}

/** Signs in with a passkey (a complete sign-in: no second step). */
export async function signInWithPasskey(): Promise<void> {
  const options = await call(() => client.POST('/api/v2/login/passkey/options', { body: {} }))
  const tokens = await call(async () => client.POST('/api/v2/login/passkey', { body: { response: await passkeyAnswer(options) } }))
  accessToken = tokens.access_token
  await requireSuperuser()
}

/** The second step with a passkey. */
export async function finishSignInWithPasskey(due: SecondFactorDue): Promise<void> {
  const options = await call(() => client.POST('/api/v2/login/mfa/passkey/options', { body: { mfa_token: due.mfaToken } }))
  const tokens = await call(async () => client.POST('/api/v2/login/mfa', { body: { mfa_token: due.mfaToken, passkey_response: await passkeyAnswer(options) } }))
  accessToken = tokens.access_token
  await requireSuperuser()
}

/** The second step: a code from the authenticator app (six digits) or a recovery code. */
export async function finishSignIn(due: SecondFactorDue, code: string): Promise<void> {
  const typed = code.trim()
  const body = /^\d{6}$/.test(typed) ? { mfa_token: due.mfaToken, code: typed } : { mfa_token: due.mfaToken, recovery_code: typed }
  const tokens = await call(() => client.POST('/api/v2/login/mfa', { body }))
  accessToken = tokens.access_token
  await requireSuperuser()
}

/** Signs in again from the refresh cookie after a reload; false when there is no session to resume. */
export async function resume(): Promise<boolean> {
  if (!(await refresh())) return false
  try {
    await requireSuperuser()
    return true
  } catch {
    return false
  }
}

export async function signOut(): Promise<void> {
  if (accessToken !== undefined) await client.POST('/api/v2/logout', { body: {} }).catch(() => undefined)
  accessToken = undefined
}

/** The signed-in superuser's own account. */
export const me = () => call(() => client.GET('/api/v2/users/me'))
