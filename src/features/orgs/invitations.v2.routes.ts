// The invited side: the caller's pending invitations (to their verified email), and accepting or
// declining one, by the mailed link's token or by its id. Only the account whose verified email
// the invitation was sent to may answer it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { toOrgRead, toReceivedInvitationRead } from './orgs.v2.mappers.js'
import { InvitationAccept, InvitationParams, orgShapesV2, ReceivedInvitationPage } from './orgs.v2.schemas.js'

const tags = ['organizations']

/** Under /invitations. */
export const invitationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { orgs } = app.services
  const { read: OrgRead } = orgShapesV2(app.services.contentFields.shapes('orgs'))
  const answer = { apiKeys: false, wayIn: 'none' as const, impersonation: 'allowed' as const }

  app.post(
    '/accept',
    protectedRoute(
      app,
      {
        tags,
        summary: "Accept an invitation by its link's token (joins the organization)",
        description: 'The account with the invited address, not yet verified, gets 202: it joins once the address is verified.',
        body: InvitationAccept,
        response: { 200: OrgRead, 202: MessageResponse, ...errorResponses(400, 403, 422) },
      },
      answer,
    ),
    async (request, reply) => {
      const accepted = await orgs.acceptByToken(tokenCallerOf(request).user, request.body.token, clientOf(request))
      if (accepted === 'claimed') return reply.code(202).send({ message: 'Verify your email address: you join the organization once it is verified' })
      return toOrgRead(accepted)
    },
  )

  app.post(
    '/:invitation_id/accept',
    protectedRoute(app, { tags, summary: 'Accept an invitation addressed to the caller', params: InvitationParams, response: { 200: OrgRead, ...errorResponses(400, 403, 404, 422) } }, answer),
    async (request) => toOrgRead(await orgs.acceptById(tokenCallerOf(request).user, request.params.invitation_id, clientOf(request))),
  )

  app.post(
    '/:invitation_id/decline',
    protectedRoute(app, { tags, summary: 'Decline an invitation addressed to the caller', params: InvitationParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, answer),
    async (request) => {
      await orgs.decline(tokenCallerOf(request).user, request.params.invitation_id, clientOf(request))
      return { message: 'Invitation declined' }
    },
  )
}

/** Under /users: GET /users/me/invitations. */
export const receivedInvitationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { orgs } = app.services
  app.get(
    '/me/invitations',
    protectedRoute(app, { tags, summary: "Pending invitations to the caller's verified email", response: { 200: ReceivedInvitationPage, ...errorResponses(403) } }, { apiKeys: false }),
    async (request) => {
      const received = await orgs.received(tokenCallerOf(request).user)
      return { data: received.map(toReceivedInvitationRead), total_count: received.length, has_more: false, page: 1, items_per_page: Math.max(received.length, 1) }
    },
  )
}
