// "Download my data": ask for an export, follow it, and download it with a single-use link.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { toDataExportRead } from './data-export.v2.mappers.js'
import { DataExportRead, DownloadLink, DownloadQuery, ExportIdParams } from './data-export.v2.schemas.js'
import { sendExportZip } from './export-download.http.js'

const tags = ['account']

const dataExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { dataExports } = app.services

  app.post(
    '/users/me/export',
    protectedRoute(app, {
      tags,
      summary: 'Download my data: queues a ZIP of everything the account holds, mailed as a link when ready; one every 24 hours (429 export_limit with Retry-After)',
      response: { 202: DataExportRead, ...errorResponses(403, 429) },
    }, { apiKeys: false, wayIn: 'none', reauthenticate: true }),
    async (request, reply) => reply.code(202).send(toDataExportRead(await dataExports.request(callerOf(request).user.id, clientOf(request)))),
  )

  app.get(
    '/users/me/exports',
    protectedRoute(app, { tags, summary: 'My latest data exports, newest first', response: { 200: Type.Array(DataExportRead) } }, { apiKeys: false }),
    async (request) => (await dataExports.list(callerOf(request).user.id)).map(toDataExportRead),
  )

  app.get(
    '/users/me/exports/:export_id',
    protectedRoute(app, { tags, summary: 'One of my data exports: its progress, or its size once ready', params: ExportIdParams, response: { 200: DataExportRead, ...errorResponses(404) } }, { apiKeys: false }),
    async (request) => toDataExportRead(await dataExports.get(callerOf(request).user.id, request.params.export_id)),
  )

  app.post(
    '/users/me/exports/:export_id/link',
    protectedRoute(app, {
      tags,
      summary: 'A new single-use download link for a ready export of mine, valid 48 hours (the mailed one is spent once used)',
      params: ExportIdParams,
      response: { 200: DownloadLink, ...errorResponses(404, 409) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'refused' }),
    async (request) => {
      const { url, expiresAt } = await dataExports.link(callerOf(request).user.id, request.params.export_id)
      return { url, expires_at: expiresAt }
    },
  )

  app.get(
    '/exports/download',
    {
      schema: {
        tags,
        summary: "A data export's ZIP, streamed; the link's token is spent by the download",
        querystring: DownloadQuery,
        response: { 200: Type.String({ format: 'binary', description: 'The ZIP' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => sendExportZip(reply, await dataExports.download(request.query.token, clientOf(request))),
  )
}

export default dataExportRoutes
