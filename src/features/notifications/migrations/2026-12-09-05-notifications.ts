import type { Kysely } from 'kysely'

import { isPostgres, timestampType } from '../../../db/migrations/dialect.js'

// What a user is mailed about, and when each reply mail went: a user without a row has the
// defaults (reply mail on). A reply mail goes once an hour at most per recipient and post, so a
// busy thread does not flood its author.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable('notification_settings')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('reply_mail', postgres ? 'boolean' : 'integer', (col) => col.notNull().defaultTo(postgres ? true : 1))
    .execute()
  await db.schema
    .createTable('reply_mails')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('mailed_at', timestampType(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('reply_mails_pkey', ['user_id', 'post_id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reply_mails').execute()
  await db.schema.dropTable('notification_settings').execute()
}
