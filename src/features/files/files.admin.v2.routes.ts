// /api/v2/admin/users/{user_id}/files and /usage: a superuser's view of a user's files and storage.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { cursorPageRequest, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { UserIdParams } from '../../api/common/params.schemas.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { toFileRead, toUsageRead } from './files.v2.mappers.js'
import { FileListQuery, FilePage, UsageRead } from './files.v2.schemas.js'

const tags = ['admin']

const adminFilesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { files, users } = app.services

  app.get(
    '/users/:user_id/files',
    protectedRoute(app, { tags, summary: "A user's files, newest first", params: UserIdParams, querystring: FileListQuery, response: { 200: FilePage, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => {
      const user = await users.getManaged(tokenCallerOf(request).user, request.params.user_id)
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await files.list(user.id, pageRequest), pageRequest, toFileRead)
    },
  )

  app.get(
    '/users/:user_id/usage',
    protectedRoute(app, { tags, summary: "A user's storage usage and quota", params: UserIdParams, response: { 200: UsageRead, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => toUsageRead(await files.usage(await users.getManaged(tokenCallerOf(request).user, request.params.user_id))),
  )
}

export default adminFilesRoutes
