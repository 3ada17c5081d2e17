import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// Tags (docs/api.md "Tags"): a post's tags as it is read (a JSON array of normalized tags, `[]`
// for every post so far: a constant default adds the column without rewriting the table), and one
// row per tag and post that `?tag=` and GET /tags find posts by, written in the post's
// transaction. Each post's tags go with it when it is deleted for good.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('tags', 'text', (col) => col.notNull().defaultTo('[]')).execute()
  await db.schema
    .createTable('post_tags')
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('tag', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('post_tags_pk', ['post_id', 'tag'])
    .execute()
  await db.schema.createIndex('post_tags_tag_idx').on('post_tags').columns(['tag', 'post_id']).execute()
  if (isPostgres(db)) await sql`alter table post_tags set (fillfactor = 100)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('post_tags').execute()
  await db.schema.alterTable('posts').dropColumn('tags').execute()
}
