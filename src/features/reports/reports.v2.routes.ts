// Version 2's reports: filing one, and the queues (superusers', and an organization's for its admins).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { orgOf, OrgParams, orgRoute } from '../orgs/index.js'
import { signedInPostCallerOf } from '../posts/index.js'
import { toReportRead, toReportReceipt } from './reports.mappers.js'
import { ReportCreate, ReportIdParams, ReportPage, ReportQueueQuery, ReportRead, ReportReceipt, ReportResolve } from './reports.schemas.js'
import type { Queue } from './reports.service.js'

const tags = ['reports']
const writes = { wayIn: 'none', impersonation: 'allowed' } as const

const reportsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { reports } = app.services

  app.post(
    '/reports',
    protectedRoute(app, { tags, summary: 'Report a post, a comment or a user (one open report per target)', body: ReportCreate, response: { 201: ReportReceipt, ...errorResponses(404, 409, 422) } }, writes),
    async (request, reply) => {
      const { target, id, reason, note } = request.body
      const report = await reports.report(signedInPostCallerOf(request), { target, id, reason, ...(note === undefined ? {} : { note }) }, clientOf(request))
      return reply.code(201).send(toReportReceipt(report))
    },
  )

  const everyReport: Queue = { kind: 'all' }
  app.get(
    '/admin/reports',
    protectedRoute(app, { tags, summary: 'The reports queue, oldest first (superusers)', querystring: ReportQueueQuery, response: { 200: ReportPage, ...errorResponses(403, 422) } }, superusersOnly),
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await reports.list(everyReport, request.query.status, pageRequest), pageRequest, toReportRead)
    },
  )

  app.post(
    '/admin/reports/:report_id/resolve',
    protectedRoute(app, { tags, summary: 'Resolve a report: dismiss, hide, remove or ban; every open report on its target with it (superusers)', params: ReportIdParams, body: ReportResolve, response: { 200: ReportRead, ...errorResponses(403, 404, 409, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => toReportRead(await reports.resolve(signedInPostCallerOf(request), everyReport, request.params.report_id, request.body.action, clientOf(request))),
  )

  app.get(
    '/orgs/:org/reports',
    orgRoute(app, { tags, summary: "The reports of an organization's posts and their comments, oldest first (its admins and owners)", params: OrgParams, querystring: ReportQueueQuery, response: { 200: ReportPage, ...errorResponses(422) } }, { role: 'admin', apiKeys: true }),
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await reports.list({ kind: 'org', orgId: orgOf(request).id }, request.query.status, pageRequest), pageRequest, toReportRead)
    },
  )

  app.post(
    '/orgs/:org/reports/:report_id/resolve',
    orgRoute(
      app,
      { tags, summary: "Resolve a report in an organization's queue: dismiss, or hide (its admins and owners)", params: { ...OrgParams, properties: { ...OrgParams.properties, ...ReportIdParams.properties } }, body: ReportResolve, response: { 200: ReportRead, ...errorResponses(422) } },
      { role: 'admin', wayIn: 'none', impersonation: 'allowed' },
    ),
    async (request) => {
      const { report_id: reportId } = request.params as { report_id: number }
      return toReportRead(await reports.resolve(signedInPostCallerOf(request), { kind: 'org', orgId: orgOf(request).id }, reportId, request.body.action, clientOf(request)))
    },
  )
}

export default reportsV2Routes
