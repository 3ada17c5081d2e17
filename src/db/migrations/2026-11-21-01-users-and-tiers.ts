import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { idColumn, now, timestampType } from './dialect.js'

export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)

  await db.schema
    .createTable('tiers')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('name', 'varchar(50)', (col) => col.notNull().unique())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('name', 'varchar(30)', (col) => col.notNull())
    .addColumn('username', 'varchar(20)', (col) => col.notNull())
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('hashed_password', 'varchar(255)', (col) => col.notNull())
    .addColumn('profile_image_url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('tier_id', 'integer', (col) => col.references('tiers.id').onDelete('set null'))
    .addColumn('age', 'integer', (col) => col.check(sql`age between 0 and 150`))
    .addColumn('is_active', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('is_superuser', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('is_verified', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('is_deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('deleted_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('updated_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()

  // Uniqueness lives in the database so racing requests cannot both win.
  // Emails compare case-insensitively; usernames are lower-case by validation.
  await db.schema
    .createIndex('users_email_key')
    .on('users')
    .unique()
    .expression(sql`lower(email)`)
    .execute()
  await db.schema.createIndex('users_username_key').on('users').unique().column('username').execute()
  await db.schema.createIndex('users_tier_id_idx').on('users').column('tier_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('users').execute()
  await db.schema.dropTable('tiers').execute()
}
