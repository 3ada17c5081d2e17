import type { Kysely } from 'kysely'

import { addFieldsColumn } from '../../../db/migrations/dialect.js'

// An organization's custom fields (CONTENT_SCHEMA's `orgs`), as posts have theirs.
export async function up(db: Kysely<any>): Promise<void> {
  await addFieldsColumn(db, 'organizations')
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('fields').execute()
}
