// The declared custom fields of each collection, checked and compiled once per process: what the
// posts, users and orgs slices read, write and document their `fields` with.
import type { Collection, ContentSchema } from './content-schema.js'
import { COLLECTIONS } from './content-schema.js'
import type { FieldShapes } from './field-schemas.js'
import { fieldShapes } from './field-schemas.js'
import { CollectionFields } from './field-values.js'

export class ContentFields {
  private readonly collections: ReadonlyMap<Collection, { fields: CollectionFields; shapes: FieldShapes }>

  constructor(schema: ContentSchema) {
    this.collections = new Map(COLLECTIONS.map((collection) => [collection, { fields: new CollectionFields(schema[collection]), shapes: fieldShapes(collection, schema[collection]) }]))
  }

  of(collection: Collection): CollectionFields {
    return this.entry(collection).fields
  }

  shapes(collection: Collection): FieldShapes {
    return this.entry(collection).shapes
  }

  private entry(collection: Collection) {
    const entry = this.collections.get(collection)
    if (!entry) throw new Error(`unknown collection ${collection}`)
    return entry
  }
}
