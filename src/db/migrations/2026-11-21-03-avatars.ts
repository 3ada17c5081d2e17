import type { Kysely } from 'kysely'

import { blobType, now, timestampType } from './dialect.js'

// Avatar images for the database storage driver, so several servers can share them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('avatars')
    .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('content_type', 'varchar(32)', (col) => col.notNull())
    .addColumn('data', blobType(db), (col) => col.notNull())
    .addColumn('created_at', timestampType(db), (col) => col.notNull().defaultTo(now(db)))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('avatars').execute()
}
