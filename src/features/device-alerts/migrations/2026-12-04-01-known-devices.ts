import type { Kysely } from 'kysely'

import { now, timestampType } from '../../../db/migrations/dialect.js'

// The devices each account was signed in to from: a browser family, an operating system and a
// platform (desktop, mobile, tablet), never the full user agent; a new one is what an alert is about.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('known_devices')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('fingerprint', 'varchar(64)', (col) => col.notNull())
    .addColumn('browser', 'varchar(64)', (col) => col.notNull())
    .addColumn('os', 'varchar(64)', (col) => col.notNull())
    .addColumn('platform', 'varchar(16)', (col) => col.notNull())
    .addColumn('first_seen_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('last_seen_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addPrimaryKeyConstraint('known_devices_pkey', ['user_id', 'fingerprint'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('known_devices').execute()
}
