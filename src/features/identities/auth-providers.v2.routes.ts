// Sign-in through OpenID Connect providers (OIDC_PROVIDERS): the list for buttons, the redirect
// to the provider, its callback (which sends the browser to redirect_to with a one-time `code`
// or an `error`), the code's exchange for the token pair, and the caller's linked identities.
import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse, signInRefusal } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { RuleViolation } from '../../shared/errors.js'
import { refuseCrossSiteLogins, tokenReplies, TokenResponse } from '../auth/index.js'
import { toIdentityRead } from './auth-providers.v2.mappers.js'
import { AuthorizeQuery, CodeExchange, IdentityRead, LinkRequest, LinkStarted, OwnIdentityParams, ProviderParams, ProviderRead } from './auth-providers.v2.schemas.js'
import type { CallbackOutcome } from './identities.service.js'

const tags = ['login']
/** Binds a flow to the browser that started it; sent back only to the callback. */
const FLOW_COOKIE = 'sign_in_flow'
const FLOW_COOKIE_SECONDS = 600
/** Binds a link ticket to the browser that asked for it; sent only to authorize. */
const LINK_COOKIE = 'identity_link'
const LINK_COOKIE_SECONDS = 300
/** Binds a hand-off code to the browser the provider sent back, when the frontend sent no PKCE challenge; sent only to the exchange. */
export const HANDOFF_COOKIE = 'sign_in_handoff'
const HANDOFF_COOKIE_SECONDS = 60

/** redirect_to with the outcome's parameters added (any it had are kept). */
function outcomeUrl(outcome: CallbackOutcome): string {
  const url = new URL(outcome.redirectTo)
  if ('code' in outcome) url.searchParams.set('code', outcome.code)
  else if ('linked' in outcome) url.searchParams.set('linked', outcome.linked)
  else {
    url.searchParams.set('error', outcome.failure.error)
    url.searchParams.set('error_description', outcome.failure.message)
  }
  return url.href
}

/** A sign-in needs somewhere to come back to (a link's ticket carries its own). */
function missingRedirect(): never {
  throw new RuleViolation('redirect_to', 'Field required', 'missing', { location: 'query' })
}

const authProviderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { identities } = app.services
  const { sendSession } = tokenReplies(app)
  const { publicUrl } = app.config.mail
  const flowCookie = { httpOnly: true, sameSite: 'lax', secure: app.config.cookieSecure, path: `${app.prefix}/auth/` } as const
  // Set by a call from the frontend (like the refresh cookie, it needs COOKIE_SAMESITE=none on another site).
  const linkCookie = { ...flowCookie, sameSite: app.config.cookieSameSite } as const
  // Read by the frontend's call to the exchange, which is the refresh cookie's kind of request.
  const handoffCookie = { httpOnly: true, sameSite: app.config.cookieSameSite, secure: app.config.cookieSecure, path: `${app.prefix}/auth/token` } as const
  await app.register(cookie)

  app.get(
    '/auth/providers',
    { schema: { tags, summary: 'The identity providers to offer as sign-in buttons', response: { 200: Type.Array(ProviderRead), ...errorResponses(429) } } },
    async () => identities.list(),
  )

  app.get(
    '/auth/:provider/authorize',
    {
      schema: {
        tags,
        summary: "Start a sign-in: redirects the browser to the provider's login page",
        description:
          'Answers 302 to the provider with state, nonce and PKCE (S256), and sets a short-lived HttpOnly cookie that binds the sign-in to this browser. ' +
          'Open it in the browser (a link or `location.href`), not with fetch. A `redirect_to` off AUTH_REDIRECT_ORIGINS: 400 `invalid_redirect`. ' +
          'With `link_ticket` (the `authorize_url` of POST /api/v2/users/me/identities/{provider}) the identity is linked to that user instead, and `redirect_to` comes from the ticket.',
        params: ProviderParams,
        querystring: AuthorizeQuery,
        response: { 302: Type.Null({ description: 'To the provider' }), ...errorResponses(400, 404, 422) },
      },
    },
    async (request, reply) => {
      const { provider } = request.params
      const { link_ticket: ticket, redirect_to: redirectTo, code_challenge: challenge } = request.query
      if (ticket !== undefined) reply.clearCookie(LINK_COOKIE, linkCookie)
      const flow =
        ticket !== undefined
          ? await identities.startLink(provider, ticket, request.cookies[LINK_COOKIE])
          : await identities.start(provider, redirectTo ?? missingRedirect(), challenge)
      reply.setCookie(FLOW_COOKIE, flow.browserBinding, { ...flowCookie, maxAge: FLOW_COOKIE_SECONDS })
      return reply.header('cache-control', 'no-store').redirect(flow.authorizationUrl, 302)
    },
  )

  app.get(
    '/auth/:provider/callback',
    {
      schema: {
        tags,
        summary: 'Where the provider sends the browser back (not called by apps)',
        description:
          'Validates the answer and sends the browser to the sign-in\'s redirect_to with a one-time `code` (60 s; trade it at POST /api/v2/auth/token), ' +
          'or with `error` and `error_description` (`account_exists`, `access_denied`, `provider_unavailable`, `invalid_response`, `account_disabled`, ' +
          '`email_required`, `email_not_verified`, `signup_disabled`, `rate_limited`, `server_error`). An unknown, used or expired state, or one another browser started: 400 `invalid_state`. ' +
          'Without a `code_challenge` at authorize, an HttpOnly cookie (60 s) binds the code to this browser for the exchange.',
        params: ProviderParams,
        response: { 302: Type.Null({ description: 'To redirect_to' }), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const binding = request.cookies[FLOW_COOKIE]
      reply.clearCookie(FLOW_COOKIE, flowCookie)
      const callbackUrl = new URL(request.url, publicUrl)
      const outcome = await identities.finish(request.params.provider, callbackUrl, binding, clientOf(request))
      if ('failure' in outcome && outcome.failure.error === 'server_error') request.log.error({ err: outcome.failure.cause }, 'provider sign-in failed')
      if ('code' in outcome && outcome.handoffBinding !== undefined) reply.setCookie(HANDOFF_COOKIE, outcome.handoffBinding, { ...handoffCookie, maxAge: HANDOFF_COOKIE_SECONDS })
      return reply.header('cache-control', 'no-store').redirect(outcomeUrl(outcome), 302)
    },
  )

  app.post(
    '/auth/token',
    {
      config: { door: 'exempt' },
      // Logging a browser in from another site's page is login CSRF: the same check as POST /login.
      onRequest: refuseCrossSiteLogins(app),
      schema: {
        tags,
        summary: 'Trade the one-time code from a provider sign-in for the token pair',
        description:
          'Answers as POST /login does (token pair, refresh cookie, or 401 `mfa_required`). The code works once, for 60 seconds, and only from the flow that started it: ' +
          'with `code_verifier` when authorize had a `code_challenge`, else from the browser the provider sent back (its hand-off cookie, sent when the call includes credentials). 400 `invalid_code` otherwise.',
        body: CodeExchange,
        response: { 200: TokenResponse, ...errorResponses(400, 403, 422), ...signInRefusal },
      },
    },
    async (request, reply) => {
      const proof = { codeVerifier: request.body.code_verifier, browserBinding: request.cookies[HANDOFF_COOKIE] }
      const session = await identities.exchange(request.body.code, proof, clientOf(request))
      reply.clearCookie(HANDOFF_COOKIE, handoffCookie)
      return sendSession(reply, session)
    },
  )

  app.post(
    '/users/me/identities/:identity',
    protectedRoute(app, {
      tags: ['account'],
      summary: "Link a provider to the caller's account: answers the URL to open in the browser",
      description:
        'Answers `{authorize_url}`, carrying a one-time ticket (5 minutes; a browser redirect cannot carry a bearer token) and sets an HttpOnly cookie that binds it to this browser. ' +
        'Opening it signs in at the provider and links that identity; the browser then lands on `redirect_to` with `linked=<provider>`, or with `error` (`identity_taken` when another account holds it).',
      params: OwnIdentityParams,
      body: LinkRequest,
      response: { 200: LinkStarted, ...errorResponses(400, 403, 404, 422) },
    }, { apiKeys: false, wayIn: 'adds' }),
    async (request, reply) => {
      const provider = request.params.identity
      const { ticket, browserBinding } = await identities.issueLinkTicket(tokenCallerOf(request).user.id, provider, request.body.redirect_to)
      reply.setCookie(LINK_COOKIE, browserBinding, { ...linkCookie, maxAge: LINK_COOKIE_SECONDS })
      return { authorize_url: `${publicUrl}${app.prefix}/auth/${encodeURIComponent(provider)}/authorize?link_ticket=${encodeURIComponent(ticket)}` }
    },
  )

  app.delete(
    '/users/me/identities/:identity',
    protectedRoute(app, {
      tags: ['account'],
      summary: 'Unlink one of the caller\'s identities',
      description: '409 `last_sign_in_method` when it is the last way to sign in (no password and no other identity): set a password through a reset, or link another first.',
      params: OwnIdentityParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 409) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      await identities.unlink(tokenCallerOf(request).user.id, request.params.identity, clientOf(request))
      return { message: 'Identity unlinked' }
    },
  )

  app.get(
    '/users/me/identities',
    protectedRoute(app, { tags: ['account'], summary: "The identity providers linked to the caller's account", response: { 200: Type.Array(IdentityRead), ...errorResponses(403) } }, { apiKeys: false }),
    async (request) => (await identities.identitiesOf(tokenCallerOf(request).user.id)).map(toIdentityRead),
  )
}

export default authProviderRoutes
