// Sign-in through identity providers (OpenID Connect, GitHub), and linking them while signed in.
// A flow starts with state, nonce and a PKCE verifier kept in the one-time secret store (state by
// its hash) and bound to the browser by an HttpOnly cookie; the callback spends the flow once,
// lets openid-client validate the provider's answer, then either links the identity to the user
// who asked (a link ticket started the flow) or resolves the user by the linking rules and hands the frontend a one-time
// code (60 s) it trades for the token pair. That code is bound to the flow that started it: to
// the PKCE challenge the frontend sent to authorize (the exchange brings the verifier), or else
// to the browser by a cookie set with the redirect, so a code sent to someone else's browser (or
// leaked in a URL) signs nobody in.
import { createHash } from 'node:crypto'
import { randomBytes, randomUUID } from 'node:crypto'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, invalidCode } from '../../shared/errors.js'
import { hashedKey } from '../../shared/hashed-key.js'
import type { RedirectAllowList } from '../../shared/redirect-allow-list.js'
import type { AuthService, BrowserSession } from '../auth/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { RateLimitService } from '../rate-limits/index.js'
import type { ClientInfo, LoginMethod, SecurityEventService } from '../security-events/index.js'
import type { SignInMethods } from '../sign-in-methods/index.js'
import type { SignupPolicy, User, UserService } from '../users/index.js'
import { isReservedAddress, RESERVED_ADDRESS } from '../users/index.js'
import type { IdentitiesRepository } from './identities.repository.js'
import type { IdentityProvider, ProviderIdentity } from './identity-provider.js'
import { newFlowSecrets, ProviderFlowError } from './identity-provider.js'

/** How long a browser has to come back from the provider. */
const FLOW_MINUTES = 10
/** How long the frontend has to trade the hand-off code. */
const HAND_OFF_SECONDS = 60
/** How long a link ticket waits for its browser to open the authorize URL. */
const LINK_TICKET_MINUTES = 5

/** A flow in flight: what the callback needs, and the browser it belongs to. The user it links to is the secret's user. */
interface FlowData {
  browserHash: string
  provider: string
  nonce: string
  codeVerifier: string
  redirectTo: string
  /** The frontend's PKCE challenge (S256) for the hand-off code; null: the code is bound to this browser's cookie instead. */
  handoffChallenge: string | null
}

/** A hand-off code remembers how the sign-in was made (`oidc:google`), for the security log. */
interface HandoffData {
  method: string
}

/** A link ticket: the browser that asked, the provider, where to return. */
interface LinkTicketData {
  browserHash: string
  provider: string
  redirectTo: string
}

/** The binding a hand-off code is spent with: the PKCE challenge, or the hash of the browser's hand-off cookie. */
const pkceBinding = (challenge: string) => `pkce:${challenge}`
const browserBindingOf = (cookie: string) => `browser:${hashedKey(cookie)}`

/** Why a sign-in failed, as the `error` and `error_description` the frontend's redirect_to gets. */
export type SignInErrorCode =
  | 'invalid_state'
  | 'access_denied'
  | 'provider_error'
  | 'provider_unavailable'
  | 'invalid_response'
  | 'account_exists'
  | 'account_disabled'
  | 'email_required'
  | 'signup_disabled'
  | 'rate_limited'
  | 'server_error'
  | 'identity_taken'
  | 'email_not_verified'
  | 'email_reserved'

export class SignInFailed extends Error {
  constructor(
    readonly error: SignInErrorCode,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options)
  }
}

/** A provider the service signs in with, for building buttons. */
export interface ProviderSummary {
  name: string
  label: string
}

/** A started flow: where to send the browser, and the cookie that binds the flow to it. */
export interface StartedFlow {
  authorizationUrl: string
  browserBinding: string
}

/** A finished callback: where the browser goes next, carrying a code, the provider it linked, or an error. */
export type CallbackOutcome =
  | { redirectTo: string; code: string; handoffBinding: string | undefined }
  | { redirectTo: string; linked: string }
  | { redirectTo: string; failure: SignInFailed }

/** What binds a hand-off code to its flow, as the exchange presents it. */
export interface HandoffProof {
  /** The PKCE verifier whose S256 challenge the frontend sent to authorize. */
  codeVerifier: string | undefined
  /** The hand-off cookie the callback set on the browser. */
  browserBinding: string | undefined
}

/** The S256 challenge of a PKCE verifier (RFC 7636). */
export const pkceChallengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

/** A link ticket for the signed-in user, and the cookie that binds it to the browser that asked. */
export interface LinkTicket {
  ticket: string
  browserBinding: string
}

export interface Identity {
  id: string
  provider: string
  email: string | null
  createdAt: string
}

/** A provider sign-in in the security log: `github`, or `oidc:<name>`. */
const methodOf = (provider: string): LoginMethod => (provider === 'github' ? 'github' : `oidc:${provider}`)

const providerNotFound = () => new DomainError('not_found', 'Provider not found', { code: 'provider_not_found' })
const providerUnavailable = (name: string) =>
  new DomainError('unavailable', `The provider ${name} did not answer its discovery yet; it is tried again until it does`, { code: 'provider_unavailable', retryAfterSeconds: 5 })
const invalidState = () => new DomainError('invalid', 'Invalid or expired sign-in', { code: 'invalid_state' })
const invalidTicket = () => new DomainError('invalid', 'Invalid or expired link ticket', { code: 'invalid_link_ticket' })
const identityNotFound = () => new DomainError('not_found', 'Identity not found', { code: 'identity_not_found' })

/** What IdentityService is built from. */
export interface IdentityServiceDependencies {
  repository: IdentitiesRepository
  secrets: OneTimeSecrets
  users: UserService
  auth: AuthService
  events: SecurityEventService
  limits: RateLimitService
  unitOfWork: UnitOfWork
  signInMethods: SignInMethods
  redirects: RedirectAllowList
  signupPolicy: SignupPolicy
}

export class IdentityService {
  private readonly providers = new Map<string, IdentityProvider>()
  /** Configured providers whose discovery has not answered yet (discovery.ts tries again). */
  private readonly expected = new Set<string>()
  private readonly flows: SecretKind<FlowData>
  private readonly handoffCodes: SecretKind<HandoffData>
  private readonly linkTickets: SecretKind<LinkTicketData>

  private readonly repository: IdentitiesRepository
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly events: SecurityEventService
  private readonly limits: RateLimitService
  private readonly unitOfWork: UnitOfWork
  private readonly signInMethods: SignInMethods
  private readonly redirects: RedirectAllowList
  private readonly signupPolicy: SignupPolicy

  constructor(dependencies: IdentityServiceDependencies) {
    this.repository = dependencies.repository
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.events = dependencies.events
    this.limits = dependencies.limits
    this.unitOfWork = dependencies.unitOfWork
    this.signInMethods = dependencies.signInMethods
    this.redirects = dependencies.redirects
    this.signupPolicy = dependencies.signupPolicy
    const secrets = dependencies.secrets
    this.flows = secrets.kind<FlowData>('provider_flow', { seconds: FLOW_MINUTES * 60 })
    this.handoffCodes = secrets.kind<HandoffData>('sign_in_code', { seconds: HAND_OFF_SECONDS })
    this.linkTickets = secrets.kind<LinkTicketData>('provider_link', { seconds: LINK_TICKET_MINUTES * 60 })
  }

  /** Adds a provider that answered its discovery (src/features/identities/discovery.ts). */
  add(provider: IdentityProvider): void {
    this.providers.set(provider.name, provider)
    this.expected.delete(provider.name)
  }

  /** A configured provider that has not answered yet: 503 `provider_unavailable` until it does. */
  expect(name: string): void {
    if (!this.providers.has(name)) this.expected.add(name)
  }

  list(): ProviderSummary[] {
    return [...this.providers.values()].map(({ name, label }) => ({ name, label }))
  }

  /**
   * Starts a sign-in: 404 for an unknown provider, 400 `invalid_redirect` for a redirect_to off
   * the list. `handoffChallenge`: the frontend's PKCE challenge (S256) for the hand-off code.
   */
  async start(providerName: string, redirectTo: string, handoffChallenge?: string): Promise<StartedFlow> {
    const provider = this.provider(providerName)
    return this.beginFlow(provider, this.redirects.check(redirectTo), null, handoffChallenge ?? null)
  }

  /**
   * The signed-in user asks to link a provider: a one-time ticket (5 minutes) for the authorize
   * URL, bound to this browser by a cookie, so nobody can hand their ticket to someone else's
   * browser and collect that person's identity on their own account.
   */
  async issueLinkTicket(userId: number, providerName: string, redirectTo: string): Promise<LinkTicket> {
    const provider = this.provider(providerName)
    const redirect = this.redirects.check(redirectTo)
    const browserBinding = randomBytes(32).toString('base64url')
    const { token: ticket } = await this.linkTickets.issue({ userId, data: { browserHash: hashedKey(browserBinding), provider: provider.name, redirectTo: redirect } })
    return { ticket, browserBinding }
  }

  /** Starts a linking flow from its ticket: once, from the browser that asked for it. */
  async startLink(providerName: string, ticket: string, browserBinding: string | undefined): Promise<StartedFlow> {
    const spent = await this.linkTickets.spend(ticket)
    if (!spent?.userId || spent.data.provider !== providerName || browserBinding === undefined || hashedKey(browserBinding) !== spent.data.browserHash) throw invalidTicket()
    return this.beginFlow(this.provider(providerName), spent.data.redirectTo, spent.userId, null)
  }

  private provider(name: string): IdentityProvider {
    const provider = this.providers.get(name)
    if (provider) return provider
    throw this.expected.has(name) ? providerUnavailable(name) : providerNotFound()
  }

  private async beginFlow(provider: IdentityProvider, redirect: string, linkUserId: number | null, handoffChallenge: string | null): Promise<StartedFlow> {
    const secrets = newFlowSecrets()
    const browserBinding = randomBytes(32).toString('base64url')
    await this.flows.issue({
      secret: secrets.state,
      userId: linkUserId,
      data: { browserHash: hashedKey(browserBinding), provider: provider.name, nonce: secrets.nonce, codeVerifier: secrets.codeVerifier, redirectTo: redirect, handoffChallenge },
    })
    return { authorizationUrl: await provider.authorizationUrl(secrets), browserBinding }
  }

  /**
   * The provider sent the browser back. An unknown, used or expired state, or one this browser
   * did not start, is a 400 here (there is no trusted place to send the browser); anything
   * after that goes back to the flow's redirect_to with an error or a one-time code.
   */
  async finish(providerName: string, callbackUrl: URL, browserBinding: string | undefined, client: ClientInfo): Promise<CallbackOutcome> {
    const state = callbackUrl.searchParams.get('state')
    const spent = state ? await this.flows.spend(state) : undefined
    const flow = spent?.data
    if (!state || !spent || !flow || flow.provider !== providerName) throw invalidState()
    if (browserBinding === undefined || hashedKey(browserBinding) !== flow.browserHash) throw invalidState()
    const provider = this.providers.get(providerName)
    if (!provider) throw invalidState()
    try {
      const identity = await provider.finish(callbackUrl, { state, nonce: flow.nonce, codeVerifier: flow.codeVerifier })
      if (spent.userId !== null) {
        await this.linkTo(spent.userId, provider.name, identity)
        return { redirectTo: flow.redirectTo, linked: provider.name }
      }
      const user = await this.resolveUser(provider.name, identity, client)
      // Without a challenge from the frontend, the code is bound to this browser instead.
      const handoffBinding = flow.handoffChallenge === null ? randomBytes(32).toString('base64url') : undefined
      const { token: code } = await this.handoffCodes.issue({
        userId: user.id,
        data: { method: methodOf(provider.name) },
        binding: handoffBinding === undefined ? pkceBinding(flow.handoffChallenge ?? '') : browserBindingOf(handoffBinding),
      })
      return { redirectTo: flow.redirectTo, code, handoffBinding }
    } catch (error) {
      return { redirectTo: flow.redirectTo, failure: asSignInFailure(error) }
    }
  }

  /**
   * Trades a hand-off code for a session, once, within 60 seconds, from the flow that started it:
   * with the verifier of its PKCE challenge, or from the browser holding its hand-off cookie. A
   * wrong binding spends nothing (the rightful browser can still finish).
   */
  async exchange(code: string, proof: HandoffProof, client: ClientInfo): Promise<BrowserSession> {
    const bindings = [
      ...(proof.codeVerifier === undefined ? [] : [pkceBinding(pkceChallengeOf(proof.codeVerifier))]),
      ...(proof.browserBinding === undefined ? [] : [browserBindingOf(proof.browserBinding)]),
    ]
    // Presented with nothing that binds it, a code is not spent: its rightful holder may still use it.
    const spent = bindings.length === 0 ? undefined : await this.handoffCodes.spend(code, { bindings })
    const user = spent?.userId && (await this.users.find(spent.userId))
    if (!spent || !user || !user.isActive) throw invalidCode()
    return this.auth.startBrowserSession(user.id, client, spent.data.method as LoginMethod)
  }

  async identitiesOf(userId: number): Promise<Identity[]> {
    return (await this.repository.listIdentitiesOf(userId)).map((row) => ({
      id: row.id,
      provider: row.provider,
      email: row.email,
      createdAt: new Date(row.created_at).toISOString(),
    }))
  }

  /** A user's identities, for a superuser (404 for a user that does not exist). */
  async identitiesOfUser(actor: Actor, userId: number): Promise<Identity[]> {
    assertSuperuser(actor)
    await this.users.getManaged(actor, userId)
    return this.identitiesOf(userId)
  }

  /**
   * A superuser unlinks one of a user's identities (one that is not theirs any more), even the
   * last: the user can still recover the account through a password reset.
   */
  async unlinkOf(actor: Actor, userId: number, identityId: string, client: ClientInfo): Promise<void> {
    assertSuperuser(actor)
    await this.removeIdentity(userId, identityId, client, { keepTheLastWayIn: false })
  }

  /**
   * Unlinks one of the user's identities; 409 when it is their last way to sign in (no password,
   * no other identity and no passkey: a password reset sets one).
   */
  unlink(userId: number, identityId: string, client: ClientInfo): Promise<void> {
    return this.removeIdentity(userId, identityId, client, { keepTheLastWayIn: true })
  }

  private async removeIdentity(userId: number, identityId: string, client: ClientInfo, options: { keepTheLastWayIn: boolean }): Promise<void> {
    const identities = await this.repository.listIdentitiesOf(userId)
    const identity = identities.find((candidate) => candidate.id === identityId)
    if (!identity) throw identityNotFound()
    const removed = await this.unitOfWork.run(async (unit) => {
      if (options.keepTheLastWayIn) await this.signInMethods.assertNotLast(unit, userId)
      return this.repository.in(unit).deleteIdentityOf(userId, identityId)
    })
    if (!removed) throw identityNotFound()
    await this.events.record('identity_unlinked', userId, client, { method: methodOf(identity.provider) })
  }

  /** Unlinks every identity of a user but those kept (account recovery); the providers of those removed, each logged. */
  async removeAllExcept(userId: number, keepIds: string[], client: ClientInfo): Promise<string[]> {
    const removed = await this.repository.deleteIdentitiesOfExcept(userId, keepIds)
    for (const provider of removed) await this.events.record('identity_unlinked', userId, client, { method: methodOf(provider) })
    return removed
  }

  /** Links the identity to the signed-in user who asked; refused when another account holds it. */
  private async linkTo(userId: number, provider: string, identity: ProviderIdentity): Promise<void> {
    const user = await this.activeUser(userId)
    const linked = await this.repository.findIdentity(provider, identity.subject)
    if (linked?.user_id === user.id) return
    if (linked) throw new SignInFailed('identity_taken', 'This identity is linked to another account')
    await this.link(user, provider, identity)
  }

  /**
   * The linking rules: an identity already linked signs its user in; else the provider must vouch
   * for the email (`email_not_verified`); an account holding it is linked only when it has the
   * address verified too (no pre-account takeover), else refuses (`account_exists`); else a new
   * account is made, verified, within the sign-up policy and limits.
   */
  private async resolveUser(provider: string, identity: ProviderIdentity, client: ClientInfo): Promise<User> {
    const linked = await this.repository.findIdentity(provider, identity.subject)
    if (linked) return this.activeUser(linked.user_id)
    if (!identity.email) throw new SignInFailed('email_required', 'The provider shared no usable email address')
    // An address the provider does not vouch for proves nothing: no account is made with it (it
    // would hold the owner's address with a stranger's identity), and none is linked by it.
    if (!identity.emailVerified) throw new SignInFailed('email_not_verified', 'The provider has not verified this email address: verify it there, then sign in again')
    // A reserved address (the service's own accounts use them) neither makes an account nor links one.
    if (isReservedAddress(identity.email)) throw new SignInFailed('email_reserved', RESERVED_ADDRESS)
    const holder = await this.users.findActiveByEmail(identity.email)
    if (holder) {
      if (!holder.isVerified) throw new SignInFailed('account_exists', 'An account with this email exists: sign in to it first, then link this provider')
      await this.link(holder, provider, identity)
      return holder
    }
    if (this.signupPolicy !== 'open') throw new SignInFailed('signup_disabled', 'New accounts cannot sign up here')
    await this.limits.consumeBuckets([['signup-address', client.ip ?? '']])
    try {
      const profile = { email: identity.email, emailVerified: identity.emailVerified, name: identity.name, username: identity.username }
      return await this.unitOfWork.run(async (unit) => {
        const user = await this.users.signUpFromProvider(unit, profile, client)
        await this.link(user, provider, identity, unit)
        return user
      })
    } catch (error) {
      // Soft-deleted and inactive accounts keep their email: the same refusal as a live one.
      if (error instanceof DomainError && error.code === 'email_taken') throw new SignInFailed('account_exists', 'An account with this email exists')
      throw error
    }
  }

  private async activeUser(userId: number): Promise<User> {
    const user = await this.users.find(userId)
    if (!user?.isActive) throw new SignInFailed('account_disabled', 'This account cannot sign in')
    return user
  }

  private async link(user: User, provider: string, identity: ProviderIdentity, unit?: Unit): Promise<void> {
    await (unit ? this.repository.in(unit) : this.repository).insertIdentity({
      id: randomUUID(),
      user_id: user.id,
      provider,
      subject: identity.subject,
      email: identity.email ?? null,
      created_at: new Date().toISOString(),
    })
    await this.events.record('identity_linked', user.id, null, { unit, method: methodOf(provider) })
  }
}

function asSignInFailure(error: unknown): SignInFailed {
  if (error instanceof SignInFailed) return error
  if (error instanceof ProviderFlowError) return new SignInFailed(error.error, error.message)
  if (error instanceof DomainError && error.kind === 'rate_limited') return new SignInFailed('rate_limited', 'Too many sign-ups from this address; try later')
  // Never a stack or a provider's secret in the redirect: the route logs the cause.
  return new SignInFailed('server_error', 'The sign-in could not be completed; try again', { cause: error })
}
