// /api/v2/admin/orgs: superusers list every organization, read one, and delete it. (On the
// organization's own routes a superuser acts as an owner.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { toPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { filled } from '../../shared/filters.js'
import { FilterRefusedResponse } from '../content-fields/index.js'
import { toOrgRead } from './orgs.v2.mappers.js'
import { AdminOrgParams, OrgListQuery, orgShapesV2 } from './orgs.v2.schemas.js'

const tags = ['admin']

export const adminOrgsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { orgs } = app.services
  const { read: OrgRead, page: OrgPage } = orgShapesV2(app.services.contentFields.shapes('orgs'))
  const superuser = (request: Parameters<typeof tokenCallerOf>[0]) => tokenCallerOf(request).user

  app.get(
    '/orgs',
    protectedRoute(app, { tags, summary: 'Every organization, oldest first', querystring: OrgListQuery, response: { 200: OrgPage, ...errorResponses(400, 403, 422), 422: FilterRefusedResponse } }, superusersOnly),
    async (request) => {
      const { page, limit, filter } = request.query
      return toPageEnvelope(await orgs.listAll(superuser(request), { page, limit, countTotal: true }, filled(filter)), { page, limit }, toOrgRead)
    },
  )

  app.get(
    '/users/:user_id/orgs',
    protectedRoute(app, { tags, summary: "A user's organizations, with their role in each", params: UserIdParams, querystring: OrgListQuery, response: { 200: OrgPage, ...errorResponses(400, 403, 422), 422: FilterRefusedResponse } }, superusersOnly),
    async (request) => {
      const { page, limit, filter } = request.query
      return toPageEnvelope(await orgs.listOf(superuser(request), request.params.user_id, { page, limit, countTotal: true }, filled(filter)), { page, limit }, toOrgRead)
    },
  )

  app.get(
    '/orgs/:org_id',
    protectedRoute(app, { tags, summary: 'One organization', params: AdminOrgParams, response: { 200: OrgRead, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => toOrgRead(await orgs.access(superuser(request), String(request.params.org_id), 'owner')),
  )

  app.delete(
    '/orgs/:org_id',
    protectedRoute(app, { tags, summary: 'Delete an organization, its memberships and invitations', params: AdminOrgParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await orgs.delete(await orgs.access(superuser(request), String(request.params.org_id), 'owner'))
      return { message: 'Organization deleted' }
    },
  )
}
