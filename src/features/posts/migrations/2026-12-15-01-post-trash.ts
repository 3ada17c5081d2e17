import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { timestampType } from '../../../db/migrations/dialect.js'

// The trash (docs/api.md "Trash"): a post deleted through version 2 stays deleted as before and
// also records until when its author may bring it back and who deleted it. The cleanup job
// removes it for good once that time has passed. Version 1's deletes leave both null: kept as
// they always were.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('trashed_until', timestampType(db)).execute()
  await db.schema
    .alterTable('posts')
    .addColumn('trashed_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .execute()
  // An author's trash, and the purge's walk through what is due: both over trashed posts only.
  await db.schema.createIndex('posts_trash_author_idx').on('posts').columns(['author_id', 'trashed_until']).where(sql.ref('trashed_until'), 'is not', null).execute()
  await db.schema.createIndex('posts_trash_due_idx').on('posts').column('trashed_until').where(sql.ref('trashed_until'), 'is not', null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('posts_trash_due_idx').execute()
  await db.schema.dropIndex('posts_trash_author_idx').execute()
  await db.schema.alterTable('posts').dropColumn('trashed_by').execute()
  await db.schema.alterTable('posts').dropColumn('trashed_until').execute()
}
