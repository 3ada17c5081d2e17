// /api/v2/orgs: organizations, their members and invitations. Every route on one organization
// declares the least role it needs (orgRoute); the service checks the finer rules (who may grant
// or take the owner role, the last owner).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'

import { clientOf } from '../../api/common/client-info.js'
import { toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { actorOf, callerOf, tokenCallerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import type { FieldValues } from '../content-fields/index.js'
import { FilterRefusedResponse } from '../content-fields/index.js'
import { toSecurityEventRead } from '../security-events/index.js'
import { roleAtLeast } from './org.js'
import { orgOf, orgRoute } from './org-route.http.js'
import type { NewOrgInput } from './orgs.service.js'
import { toInvitationRead, toMemberRead, toOrgRead } from './orgs.v2.mappers.js'
import {
  InvitationCreate,
  InvitationPage,
  InvitationRead,
  MemberPage,
  MemberParams,
  OrgInvitationParams,
  OrgListQuery,
  OrgPageQuery,
  OrgParams,
  OrgSecurityEventPage,
  orgShapesV2,
  RoleRead,
  RoleUpdate,
} from './orgs.v2.schemas.js'

const tags = ['organizations']

/** The body of a change, as its route's schema (orgShapesV2) checked it. */
interface OrgBody {
  name?: string
  slug?: string
  require_mfa?: boolean
  fields?: FieldValues
}

const orgsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { orgs } = app.services
  const { read: OrgRead, create: OrgCreate, update: OrgUpdate, page: OrgPage } = orgShapesV2(app.services.contentFields.shapes('orgs'))
  const member = { role: 'member' as const, apiKeys: true }
  const admin = { role: 'admin' as const }
  const adminRead = { role: 'admin' as const, apiKeys: true }

  app.post(
    '/',
    protectedRoute(app, { tags, summary: 'Create an organization (the caller becomes its owner)', body: OrgCreate, response: { 201: OrgRead, ...errorResponses(403, 409, 422) } }, { apiKeys: false, wayIn: 'none', impersonation: 'allowed' }),
    async (request, reply) => reply.code(201).send(toOrgRead(await orgs.create(tokenCallerOf(request).user, request.body as NewOrgInput, clientOf(request)))),
  )

  app.get(
    '/',
    protectedRoute(app, { tags, summary: "The caller's organizations, with their role in each", querystring: OrgListQuery, response: { 200: OrgPage, ...errorResponses(400, 403, 422), 422: FilterRefusedResponse } }),
    async (request) => {
      const { page, limit, filter } = request.query
      const actor = actorOf(request)
      return toPageEnvelope(await orgs.listMine(actor, { page, limit, countTotal: true }, actor, filled(filter)), { page, limit }, toOrgRead)
    },
  )

  app.get('/:org', orgRoute(app, { tags, summary: 'One organization (by id or slug)', params: OrgParams, response: { 200: OrgRead, ...errorResponses(422) } }, member), async (request) =>
    toOrgRead(orgOf(request)),
  )

  app.patch(
    '/:org',
    orgRoute(app, { tags, summary: "Change an organization's name, slug or second-factor rule", params: OrgParams, body: OrgUpdate, response: { 200: OrgRead, ...errorResponses(409, 422) } }, { ...admin, wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      const { name, slug, require_mfa: requireMfa, fields } = request.body as OrgBody
      return toOrgRead(await orgs.update(actorOf(request), orgOf(request), { name, slug, requireMfa, fields }, clientOf(request)))
    },
  )

  app.delete(
    '/:org',
    orgRoute(app, { tags, summary: 'Delete an organization, its memberships and invitations', params: OrgParams, response: { 200: MessageResponse, ...errorResponses(422) } }, { role: 'owner', wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      await orgs.delete(orgOf(request))
      return { message: 'Organization deleted' }
    },
  )

  app.get(
    '/:org/members',
    orgRoute(app, { tags, summary: 'The members, in the order they joined', params: OrgParams, querystring: OrgPageQuery, response: { 200: MemberPage, ...errorResponses(422) } }, member),
    async (request) => {
      const { page, limit } = request.query
      const shown = memberEmailShown(request)
      return toPageEnvelope(await orgs.members(orgOf(request), { page, limit }), { page, limit }, (item) => toMemberRead(item, shown(item.userId)))
    },
  )

  app.patch(
    '/:org/members/:user_id',
    orgRoute(
      app,
      { tags, summary: "Change a member's role (only owners grant or take owner)", params: MemberParams, body: RoleUpdate, response: { 200: RoleRead, ...errorResponses(409, 422) } },
      { ...admin, wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request) => {
      const role = await orgs.changeRole(actorOf(request), orgOf(request), request.params.user_id, request.body.role, clientOf(request))
      return { user_id: request.params.user_id, role }
    },
  )

  app.delete(
    '/:org/members/:user_id',
    orgRoute(
      app,
      { tags, summary: 'Remove a member (admins), or leave (anyone, their own id)', params: MemberParams, response: { 200: MessageResponse, ...errorResponses(409, 422) } },
      { role: 'member', wayIn: 'none', impersonation: 'allowed', mfaExempt: (request) => Number((request.params as { user_id?: string }).user_id) === request.caller?.user.id },
    ),
    async (request) => {
      await orgs.removeMember(actorOf(request), orgOf(request), request.params.user_id, clientOf(request))
      return { message: request.params.user_id === callerOf(request).user.id ? 'You left the organization' : 'Member removed' }
    },
  )

  const inviting = orgRoute(
    app,
    { tags, summary: 'Invite an email address (mails a link; replaces an earlier invitation to it)', params: OrgParams, body: InvitationCreate, response: { 201: InvitationRead, ...errorResponses(409, 422, 429, 503) } },
    { ...admin, wayIn: 'none', impersonation: 'allowed' },
  )
  app.post(
    '/:org/invitations',
    // A door: it mails any address, so a CAPTCHA may guard it (src/features/abuse).
    { ...inviting, config: { ...inviting.config, door: 'invitation' as const } },
    async (request, reply) => reply.code(201).send(toInvitationRead(await orgs.invite(tokenCallerOf(request).user, orgOf(request), request.body, clientOf(request)))),
  )

  app.get(
    '/:org/invitations',
    orgRoute(app, { tags, summary: 'Pending invitations, newest first', params: OrgParams, querystring: OrgPageQuery, response: { 200: InvitationPage, ...errorResponses(422) } }, adminRead),
    async (request) => {
      const { page, limit } = request.query
      return toPageEnvelope(await orgs.invitations(orgOf(request), { page, limit, countTotal: true }), { page, limit }, toInvitationRead)
    },
  )

  app.delete(
    '/:org/invitations/:invitation_id',
    orgRoute(app, { tags, summary: 'Revoke a pending invitation (its link stops working)', params: OrgInvitationParams, response: { 200: MessageResponse, ...errorResponses(422) } }, { ...admin, wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      await orgs.revokeInvitation(actorOf(request), orgOf(request), request.params.invitation_id, clientOf(request))
      return { message: 'Invitation revoked' }
    },
  )

  app.get(
    '/:org/security-events',
    orgRoute(app, { tags, summary: "The organization's own security log, newest first", params: OrgParams, querystring: OrgPageQuery, response: { 200: OrgSecurityEventPage, ...errorResponses(422) } }, adminRead),
    async (request) => {
      const { page, limit } = request.query
      return toPageEnvelope(await orgs.securityLog(orgOf(request), { page, limit, countTotal: true }), { page, limit }, toSecurityEventRead)
    },
  )
}

/** Admins and owners see every member's email; others their own, or all with EMAIL_VISIBILITY=public. */
function memberEmailShown(request: FastifyRequest) {
  const viewer = callerOf(request).user
  const { role } = orgOf(request)
  const all = request.server.config.emailVisibility.v2 === 'public' || viewer.isSuperuser || (role !== null && roleAtLeast(role, 'admin'))
  return (userId: number) => all || userId === viewer.id
}

export default orgsRoutes
