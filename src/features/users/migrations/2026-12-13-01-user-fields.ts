import type { Kysely } from 'kysely'

import { addFieldsColumn } from '../../../db/migrations/dialect.js'

// A user's custom fields (CONTENT_SCHEMA's `users`), as posts have theirs.
export async function up(db: Kysely<any>): Promise<void> {
  await addFieldsColumn(db, 'users')
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('fields').execute()
}
