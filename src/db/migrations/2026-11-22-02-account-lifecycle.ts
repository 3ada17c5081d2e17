import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Account lifecycle: single-use tokens for email verification and password reset (only their
// SHA-256 is stored: the mail holds the only copy), the durable mail outbox, and the security
// event log.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)

  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
    // The address the token was mailed to: verifying it verifies that address only.
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('user_tokens_user_id_idx').on('user_tokens').column('user_id').execute()
  await db.schema.createIndex('user_tokens_expires_at_idx').on('user_tokens').column('expires_at').execute()

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('recipient', 'varchar(254)', (col) => col.notNull())
    .addColumn('subject', 'varchar(300)', (col) => col.notNull())
    .addColumn('text_body', 'text', (col) => col.notNull())
    .addColumn('html_body', 'text', (col) => col.notNull())
    // pending -> sent, or failed after the last attempt.
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    // Epoch milliseconds: when the next attempt may start, and until when a claim holds.
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('claimed_by', 'varchar(64)')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_error', 'varchar(500)')
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('sent_at', ts)
    .execute()
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['status', 'next_attempt_at']).execute()

  await db.schema
    .createTable('security_events')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    // No foreign key: the log outlives the accounts it speaks of (permanent deletion is an event).
    .addColumn('user_id', 'integer')
    .addColumn('type', 'varchar(32)', (col) => col.notNull())
    .addColumn('ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('created_at', ts, (col) => col.notNull())
    .execute()
  await db.schema.createIndex('security_events_user_idx').on('security_events').columns(['user_id', 'created_at']).execute()
  await db.schema.createIndex('security_events_created_idx').on('security_events').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('security_events').execute()
  await db.schema.dropTable('mail_outbox').execute()
  await db.schema.dropTable('user_tokens').execute()
}
