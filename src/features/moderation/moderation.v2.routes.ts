// Bans and support impersonation, for superusers (under /admin): ban and lift, open a user's
// account as them, end it, and read what was done in it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { toPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { managedUserReads } from '../admin/index.js'
import { toUserReadV2, userReader, userShapesV2 } from '../users/index.js'
import type { Impersonation, ImpersonationRequest } from './impersonations.service.js'
import {
  BanCreate,
  ImpersonationCreate,
  ImpersonationIdParams,
  ImpersonationPage,
  ImpersonationQuery,
  ImpersonationRequestPage,
  ImpersonationsEnded,
  impersonationStarted,
  RequestPageQuery,
} from './moderation.v2.schemas.js'

const tags = ['admin']

const toImpersonationRead = (impersonation: Impersonation) => ({
  id: impersonation.id,
  user_id: impersonation.userId,
  superuser_id: impersonation.superuserId,
  mode: impersonation.mode,
  reason: impersonation.reason,
  created_at: impersonation.createdAt,
  expires_at: impersonation.expiresAt,
  ended_at: impersonation.endedAt,
})

const toRequestRead = (request: ImpersonationRequest) => ({ id: request.id, method: request.method, route: request.route, status: request.status, created_at: request.createdAt })

const moderationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { bans, impersonations } = app.services
  const superuser = (request: Parameters<typeof tokenCallerOf>[0]) => tokenCallerOf(request).user
  const { read: ManagedUserRead, toRead: toManagedUserRead } = managedUserReads(app.services.contentFields)

  app.post(
    '/users/:user_id/ban',
    protectedRoute(app, {
      tags,
      summary: 'Ban a user: every way in is refused (403 `account_banned`) and their sessions end, until `expires_at` or for good',
      params: UserIdParams,
      body: BanCreate,
      response: { 200: ManagedUserRead, ...errorResponses(403, 404, 409, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      const { reason, public_message: publicMessage, expires_at: expiresAt } = request.body
      return toManagedUserRead(await bans.ban(superuser(request), request.params.user_id, { reason, publicMessage, expiresAt }, clientOf(request)))
    },
  )

  app.delete(
    '/users/:user_id/ban',
    protectedRoute(app, { tags, summary: "Lift a user's ban (nothing changes when there is none)", params: UserIdParams, response: { 200: ManagedUserRead, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => toManagedUserRead(await bans.lift(superuser(request), request.params.user_id, clientOf(request))),
  )

  app.post(
    '/users/:user_id/impersonate',
    protectedRoute(app, {
      tags,
      summary: 'Act as a user for support: an access token with `act`, no refresh token, at most 60 minutes; recorded, and shown to the user',
      description: 'Superusers and banned users are never impersonated (409 `cannot_impersonate`); an impersonation never starts another (403 `impersonation_forbidden`).',
      params: UserIdParams,
      body: ImpersonationCreate,
      response: { 201: impersonationStarted(userShapesV2(app.services.contentFields.shapes('users')).read), ...errorResponses(404, 409, 422) },
    }, { ...superusersOnly, wayIn: 'none', reauthenticate: true }),
    async (request, reply) => {
      const started = await impersonations.start(tokenCallerOf(request), request.params.user_id, request.body)
      return reply.code(201).send({
        impersonation_id: started.id,
        access_token: started.accessToken,
        token_type: 'bearer' as const,
        expires_in: started.expiresIn,
        expires_at: started.expiresAt,
        mode: started.mode,
        user: userReader(request, toUserReadV2, 'writer')(started.user),
      })
    },
  )

  app.post(
    '/impersonation/end',
    protectedRoute(app, {
      tags,
      summary: 'End an impersonation early: with its own token, that one; with a superuser\'s, every one of theirs still running',
      response: { 200: ImpersonationsEnded, ...errorResponses(403, 404) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'ends' }),
    async (request) => {
      const ended = await impersonations.end(tokenCallerOf(request))
      return { detail: ended === 1 ? 'Ended 1 impersonation' : `Ended ${ended} impersonations`, ended }
    },
  )

  app.get(
    '/impersonations',
    protectedRoute(app, { tags, summary: 'Impersonations, newest first, by user or by superuser', querystring: ImpersonationQuery, response: { 200: ImpersonationPage, ...errorResponses(403, 422) } }, superusersOnly),
    async (request) => {
      const { page, limit, user_id: userId, superuser_id: superuserId } = request.query
      const filter = { ...(userId === undefined ? {} : { userId }), ...(superuserId === undefined ? {} : { superuserId }) }
      return toPageEnvelope(await impersonations.list(superuser(request), filter, { page, limit, countTotal: true }), { page, limit }, toImpersonationRead)
    },
  )

  app.get(
    '/impersonations/:impersonation_id/requests',
    protectedRoute(app, { tags, summary: 'Every request made in an impersonation, in order', params: ImpersonationIdParams, querystring: RequestPageQuery, response: { 200: ImpersonationRequestPage, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => {
      const { page, limit } = request.query
      return toPageEnvelope(await impersonations.requests(superuser(request), request.params.impersonation_id, { page, limit, countTotal: true }), { page, limit }, toRequestRead)
    },
  )
}

export default moderationRoutes
