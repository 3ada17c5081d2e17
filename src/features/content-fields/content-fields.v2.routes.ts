// /api/v2/admin/content-fields: what the records hold in their custom fields, declared or not (superusers).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { COLLECTIONS, FIELD_LEVELS } from './content-schema.js'

const StoredFieldsReport = Type.Object(
  {
    collections: Type.Array(
      Type.Object({
        collection: Type.Union(COLLECTIONS.map((collection) => Type.Literal(collection))),
        fields: Type.Array(
          Type.Object({
            name: Type.String(),
            records: Type.Integer({ description: 'How many records hold a value under this name, soft-deleted ones too' }),
            visibility: Type.Union([...FIELD_LEVELS.map((level) => Type.Literal(level)), Type.Null()], { description: "The declared field's level; null for a name CONTENT_SCHEMA does not declare: its values are kept and shown to nobody" }),
          }),
        ),
      }),
    ),
  },
  { title: 'StoredFieldsReport' },
)

export const contentFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { storedFields } = app.services
  app.get(
    '/content-fields',
    protectedRoute(app, {
      tags: ['admin'],
      summary: 'The custom fields records hold, declared or not, with how many hold each',
      description: 'Reads every post, user and organization: a report for after CONTENT_SCHEMA changes, not for every request.',
      response: { 200: StoredFieldsReport, ...errorResponses(403) },
    }, superusersOnly),
    async (request) => ({ collections: await storedFields.report(tokenCallerOf(request).user) }),
  )
}
