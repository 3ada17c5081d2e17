import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Sign-in by email: each request's link token and 6-digit code, stored hashed (the mail holds the
// only copies), with the wrong codes counted against it. And the security log names how a login
// was made (password, email_link, email_code …).
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('email_login_requests')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('code_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The address the mail went to: signing in with it verifies that address only.
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('email_login_requests_user_id_idx').on('email_login_requests').column('user_id').execute()
  await db.schema.createIndex('email_login_requests_expires_at_idx').on('email_login_requests').column('expires_at').execute()
  await db.schema.alterTable('security_events').addColumn('method', 'varchar(32)').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('security_events').dropColumn('method').execute()
  await db.schema.dropTable('email_login_requests').execute()
}
