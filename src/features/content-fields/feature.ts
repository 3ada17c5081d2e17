// Custom fields: the operator's own fields on posts, users and organizations, declared in
// CONTENT_SCHEMA (content-schema.ts) and read by level (field-values.ts). The slices of those
// records store and serve them; this one checks the declaration and decides who reads what.
import { type Feature, routes } from '../feature.js'
import { contentFieldsFunctions, contentFieldsReadTargets } from './content-fields.repository.js'
import { ContentFields } from './content-fields.service.js'
import { contentFieldsRoutes } from './content-fields.v2.routes.js'
import { contentFieldsErrorCodes } from './errors.js'
import type { ContentFieldsSettings } from './settings.js'
import { contentFieldsSettings } from './settings.js'
import { StoredFields } from './stored-fields.service.js'

interface ContentFieldsServices {
  contentFields: ContentFields
  /** What the records hold in their fields, declared or not (the superusers' report). */
  storedFields: StoredFields
}

export const contentFieldsFeature: Feature<ContentFieldsServices, ContentFieldsSettings> = {
  name: 'content-fields',
  errors: contentFieldsErrorCodes,
  settings: (env) => contentFieldsSettings(env),
  create: ({ config, bind }) => {
    const contentFields = new ContentFields(config.contentSchema)
    return { contentFields, storedFields: new StoredFields(bind(contentFieldsFunctions, contentFieldsReadTargets), contentFields) }
  },
  routes: { v2: [routes(contentFieldsRoutes, { prefix: '/admin' })] },
}
