// Superuser endpoints for running the service (the admin console at /admin uses only these and
// the public API). Tokens only: an API key never reaches them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { PageEnvelopeSchema, toPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import { ApiKeyIdParams, ApiKeyRead, toApiKeyRead } from '../api-keys/index.js'
import { SessionRead, toSessionRead } from '../auth/index.js'
import { IdentityIdParams, IdentityRead, toIdentityRead } from '../identities/index.js'
import type { UserDirectoryQuery } from '../users/index.js'
import { OverviewRead, UserDirectoryQuery as UserDirectoryParameters } from './admin.v2.schemas.js'
import { managedUserReads } from './managed-user.http.js'
import type { Overview } from './overview.service.js'

const tags = ['admin']

const toOverviewRead = (overview: Overview) => ({
  users: overview.users,
  posts: overview.posts,
  days: overview.days.map((day) => ({
    day: day.day,
    sign_ups: day.signUps,
    logins: day.logins,
    captcha_failures: day.captchaFailures,
    breached_passwords: day.breachedPasswords,
    blocked_domains: day.blockedDomains,
  })),
  database: overview.database,
  redis: overview.redis,
})


const UserApiKeyParams = Type.Object({ ...UserIdParams.properties, ...ApiKeyIdParams.properties })
const UserIdentityParams = Type.Object({ ...UserIdParams.properties, ...IdentityIdParams.properties })
/** `-name` sorts by name descending. */
const sortOf = (value: `${'' | '-'}${UserDirectoryQuery['sort']}`) => ({
  sort: value.replace(/^-/, '') as UserDirectoryQuery['sort'],
  descending: value.startsWith('-'),
})
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { overview, users, auth, apiKeys, account, identities } = app.services
  const superuser = (request: Parameters<typeof tokenCallerOf>[0]) => tokenCallerOf(request).user
  const { read: ManagedUserRead, toRead: managedRead } = managedUserReads(app.services.contentFields)
  const ManagedUserPage = PageEnvelopeSchema(ManagedUserRead, 'ManagedUserPage')

  app.get(
    '/overview',
    protectedRoute(app, { tags, summary: 'Counts, sign-ups and logins over the last 7 days, and store status', response: { 200: OverviewRead, ...errorResponses(403) } }, superusersOnly),
    async (request) => toOverviewRead(await overview.overview(superuser(request))),
  )

  app.get(
    '/users',
    protectedRoute(app, {
      tags,
      summary: 'Every user, soft-deleted ones too: search, state, sort and pages',
      querystring: UserDirectoryParameters,
      response: { 200: ManagedUserPage, ...errorResponses(403, 422) },
    }, superusersOnly),
    async (request) => {
      const { page, limit, search, status, sort } = request.query
      const query = { search: filled(search), status, ...sortOf(sort) }
      const found = await users.directory(superuser(request), query, { page, limit, countTotal: true })
      return toPageEnvelope(found, { page, limit }, managedRead)
    },
  )

  app.get(
    '/users/:user_id',
    protectedRoute(app, { tags, summary: 'A user in any state, with every field', params: UserIdParams, response: { 200: ManagedUserRead, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => managedRead(await users.getManaged(superuser(request), request.params.user_id)),
  )

  app.get(
    '/users/:user_id/sessions',
    protectedRoute(app, { tags, summary: "A user's live sessions, newest first", params: UserIdParams, response: { 200: Type.Array(SessionRead), ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => (await auth.sessionsOf(superuser(request), request.params.user_id)).map(toSessionRead),
  )

  app.delete(
    '/users/:user_id/sessions',
    protectedRoute(app, { tags, summary: "End every session of a user (their tokens stop working)", params: UserIdParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      const count = await auth.endSessionsOf(superuser(request), request.params.user_id, clientOf(request))
      return { message: `Revoked ${plural(count, 'session')}` }
    },
  )

  app.get(
    '/users/:user_id/api-keys',
    protectedRoute(app, { tags, summary: "A user's live API keys, without their secrets", params: UserIdParams, response: { 200: Type.Array(ApiKeyRead), ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => (await apiKeys.listOf(superuser(request), request.params.user_id)).map(toApiKeyRead),
  )

  app.delete(
    '/users/:user_id/api-keys/:api_key_id',
    protectedRoute(app, { tags, summary: "Revoke one of a user's API keys", params: UserApiKeyParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await apiKeys.revokeOf(superuser(request), request.params.user_id, request.params.api_key_id)
      return { message: 'API key revoked' }
    },
  )

  app.get(
    '/users/:user_id/identities',
    protectedRoute(app, { tags, summary: "The identity providers linked to a user", params: UserIdParams, response: { 200: Type.Array(IdentityRead), ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => (await identities.identitiesOfUser(superuser(request), request.params.user_id)).map(toIdentityRead),
  )

  app.delete(
    '/users/:user_id/identities/:identity_id',
    protectedRoute(app, {
      tags,
      summary: "Unlink one of a user's identities",
      description: 'Even the last one: the user can still set a password through a reset.',
      params: UserIdentityParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await identities.unlinkOf(superuser(request), request.params.user_id, request.params.identity_id, clientOf(request))
      return { message: 'Identity unlinked' }
    },
  )

  app.post(
    '/users/:user_id/email-verification',
    protectedRoute(app, {
      tags,
      summary: "Mail a user a new link that verifies their email address",
      description: 'Answers 202 when a link was queued, 200 (and no mail) when the address is verified already.',
      params: UserIdParams,
      response: { 200: MessageResponse, 202: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => {
      const sent = await account.resendEmailVerification(superuser(request), request.params.user_id)
      return sent ? reply.code(202).send({ message: 'Verification email sent' }) : { message: 'Email already verified' }
    },
  )
}

export default adminRoutes
