// What other slices use of custom fields.
export type { ContentFields } from './content-fields.service.js'
export type { Collection, ContentSchema, FieldDeclaration, FieldLevel } from './content-schema.js'
export { EMPTY_CONTENT_SCHEMA, parseContentSchema } from './content-schema.js'
export type { FieldShapes } from './field-schemas.js'
export type { CollectionFields, FieldValues } from './field-values.js'
export { FIELDS_MAX_BYTES, fieldsColumn, mergedFields, NO_FIELDS, storedFieldsOf } from './field-values.js'
