import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Tickets for the realtime stream: a browser's EventSource cannot send an Authorization header,
// so a signed-in page trades its token for a ticket (30 s, single use) that goes in the URL.
// The ticket remembers the token it was issued for: the stream ends when that token would.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('stream_tickets')
    .addColumn('ticket_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('jti', 'varchar(64)', (col) => col.notNull())
    .addColumn('session_id', 'varchar(64)', (col) => col.notNull())
    // Epoch ms at which the access token the ticket was issued for expires.
    .addColumn('token_expires_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('stream_tickets_expires_at_idx').on('stream_tickets').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stream_tickets').execute()
}
