// The `fields` object of a collection's v2 shapes, built from the declared schema when the routes
// register: the same schema validates writes (422 naming the field), serializes reads (only
// declared fields go out) and is what the OpenAPI document and the typed client show.
import type { TObject } from 'typebox'
import { Type } from 'typebox'

import type { Collection, CollectionSchema } from './content-schema.js'

const TITLES: Record<Collection, string> = { posts: 'PostFields', users: 'UserFields', orgs: 'OrgFields' }

const DESCRIPTION = 'Custom fields declared in CONTENT_SCHEMA. Each read shows the fields the caller may read (public: whoever reads the record; private: its owner and superusers; server: superusers), and writes accept the declared fields only'

export interface FieldShapes {
  read: TObject
  create: TObject
  update: TObject
  /** Whether a create must carry `fields` (some field is required). */
  requiredOnCreate: boolean
}

export function fieldShapes(collection: Collection, schema: CollectionSchema): FieldShapes {
  const title = TITLES[collection]
  const read = Type.Object(
    Object.fromEntries(schema.fields.map((field) => [field.name, Type.Optional(field.value)])),
    { additionalProperties: false, title, description: DESCRIPTION },
  )
  const create = Type.Object(
    Object.fromEntries(schema.fields.map((field) => [field.name, field.required ? field.value : Type.Optional(field.value)])),
    { additionalProperties: false, title: `${title}Create`, description: `${DESCRIPTION}. Required ones must be given` },
  )
  // An edit names the fields it changes; null takes a field away (not a required one).
  const update = Type.Object(
    Object.fromEntries(schema.fields.map((field) => [field.name, Type.Optional(field.required ? field.value : Type.Union([field.value, Type.Null()]))])),
    { additionalProperties: false, title: `${title}Update`, description: `${DESCRIPTION}. The fields named replace the stored ones, null takes one away, the others stay` },
  )
  return { read, create, update, requiredOnCreate: schema.fields.some((field) => field.required) }
}
