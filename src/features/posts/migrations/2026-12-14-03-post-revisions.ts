import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from '../../../db/migrations/dialect.js'

// Revisions (docs/api.md "Revisions"): each change of a post's title, text, visibility, tags or
// attachments keeps the version before it, written in the change's transaction; the oldest past
// POST_REVISIONS_KEPT go in the same transaction. They go with their post when it is deleted for good.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('post_revisions')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('visibility', 'text', (col) => col.notNull())
    .addColumn('tags', 'text', (col) => col.notNull())
    .addColumn('language', 'text')
    // The ids of its files, in order, as a JSON array.
    .addColumn('attachments', 'text', (col) => col.notNull())
    // Who made the change that replaced this version (null once their account is gone).
    .addColumn('replaced_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', timestampType(db), (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('post_revisions_post_id_idx').on('post_revisions').columns(['post_id', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('post_revisions').execute()
}
