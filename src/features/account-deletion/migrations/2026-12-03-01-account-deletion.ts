import type { Kysely } from 'kysely'

import { timestampType } from '../../../db/migrations/dialect.js'

// An account its owner deleted waits out its grace period soft-deleted, with the time it goes for good.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('deletion_due_at', timestampType(db)).execute()
  await db.schema.createIndex('users_deletion_due_idx').on('users').column('deletion_due_at').where('deletion_due_at', 'is not', null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_deletion_due_idx').execute()
  await db.schema.alterTable('users').dropColumn('deletion_due_at').execute()
}
