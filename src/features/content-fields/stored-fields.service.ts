// The report of what records hold in their custom fields (docs/api.md "Custom fields"): after the
// schema changes, a value it no longer declares is kept and shown to nobody; this is where a
// superuser sees it, by name and count, beside the declared fields.
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser } from '../../shared/errors.js'
import type { ContentFieldsRepository, FieldsTable } from './content-fields.repository.js'
import type { ContentFields } from './content-fields.service.js'
import type { Collection, FieldLevel } from './content-schema.js'
import { COLLECTIONS } from './content-schema.js'

const TABLES: Record<Collection, FieldsTable> = { posts: 'posts', users: 'users', orgs: 'organizations' }

export interface StoredField {
  name: string
  /** How many records hold a value under this name (soft-deleted ones too). */
  records: number
  /** Its level when declared; null for a name the schema does not declare (kept, shown to nobody). */
  visibility: FieldLevel | null
}

export interface CollectionReport {
  collection: Collection
  fields: StoredField[]
}

export class StoredFields {
  constructor(
    private readonly repository: ContentFieldsRepository,
    private readonly declared: ContentFields,
  ) {}

  /** Every declared field and every stored name, with how many records hold it (superusers). */
  async report(actor: Actor): Promise<CollectionReport[]> {
    assertSuperuser(actor)
    const reports: CollectionReport[] = []
    for (const collection of COLLECTIONS) {
      const stored = new Map((await this.repository.countStoredFields(TABLES[collection])).map((row) => [row.name, Number(row.records)]))
      const levels = new Map(this.declared.of(collection).declared.map((field) => [field.name, field.level]))
      const names = [...new Set([...levels.keys(), ...stored.keys()])].sort()
      reports.push({ collection, fields: names.map((name) => ({ name, records: stored.get(name) ?? 0, visibility: levels.get(name) ?? null })) })
    }
    return reports
  }
}
