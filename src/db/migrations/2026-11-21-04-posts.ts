import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { idColumn, now, timestampType } from './dialect.js'

export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('posts')
    .addColumn('id', 'integer', idColumn(db))
    // A permanently removed user takes their posts along.
    .addColumn('author_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'varchar(100)', (col) => col.notNull())
    .addColumn('text', 'text', (col) => col.notNull().check(sql`length(text) <= 10000`))
    .addColumn('media_url', 'varchar(2048)')
    .addColumn('is_deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('deleted_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('updated_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()

  // Indexes:
  // - the primary key serves get-by-id and the default listing (newest first = id descending);
  // - (author_id, id) serves listing one author's posts newest first, and the foreign key's
  //   cascade on permanent user removal, without scanning the table.
  await db.schema.createIndex('posts_author_id_id_idx').on('posts').columns(['author_id', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('posts').execute()
}
