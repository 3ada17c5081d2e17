import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Linking a provider to the signed-in user: a one-time ticket (a browser redirect cannot carry a
// bearer token), bound to the browser that asked for it, and the user a flow links to.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('identity_link_tickets')
    .addColumn('ticket_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('browser_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(40)', (col) => col.notNull())
    .addColumn('redirect_to', 'varchar(2048)', (col) => col.notNull())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('identity_link_tickets_expires_at_idx').on('identity_link_tickets').column('expires_at').execute()
  await db.schema.alterTable('sign_in_flows').addColumn('link_user_id', 'integer').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sign_in_flows').dropColumn('link_user_id').execute()
  await db.schema.dropTable('identity_link_tickets').execute()
}
