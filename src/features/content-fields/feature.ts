// Custom fields: the operator's own fields on posts, users and organizations, declared in
// CONTENT_SCHEMA (content-schema.ts) and read by level (field-values.ts). The slices of those
// records store and serve them; this one checks the declaration and decides who reads what.
import type { Feature } from '../feature.js'
import { ContentFields } from './content-fields.service.js'
import { contentFieldsErrorCodes } from './errors.js'
import type { ContentFieldsSettings } from './settings.js'
import { contentFieldsSettings } from './settings.js'

interface ContentFieldsServices {
  contentFields: ContentFields
}

export const contentFieldsFeature: Feature<ContentFieldsServices, ContentFieldsSettings> = {
  name: 'content-fields',
  errors: contentFieldsErrorCodes,
  settings: (env) => contentFieldsSettings(env),
  create: ({ config }) => ({ contentFields: new ContentFields(config.contentSchema) }),
}
