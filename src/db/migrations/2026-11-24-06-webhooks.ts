import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from './dialect.js'

// What changed, for whoever listens: each change to a user or a post writes one row of
// change_events in its own transaction. Webhook deliveries are made from those rows afterwards
// (forwarded marks the rows already turned into deliveries), and realtime streams read them.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('change_events')
    .addColumn('id', 'integer', idColumn(db))
    // The message id receivers see (webhook-id), the same for every endpoint and every retry.
    .addColumn('message_id', 'varchar(48)', (col) => col.notNull())
    .addColumn('type', 'varchar(40)', (col) => col.notNull())
    // The resource it is about ('user:12', 'post:7'): deliveries to one endpoint keep its order.
    .addColumn('subject', 'varchar(40)', (col) => col.notNull())
    // The user the event belongs to (the user, or the post's author); no foreign key: events outlive removals.
    .addColumn('user_id', 'integer')
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('forwarded', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('change_events_forwarded_id_idx').on('change_events').columns(['forwarded', 'id']).execute()
  await db.schema.createIndex('change_events_created_at_idx').on('change_events').column('created_at').execute()

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('description', 'varchar(500)', (col) => col.notNull().defaultTo(''))
    // A JSON array of event types.
    .addColumn('events', 'text', (col) => col.notNull())
    // Signing secrets, sealed with a key derived from SECRET_KEY; the previous one signs too until previous_secret_until (epoch ms).
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'varchar(200)')
    // Epoch ms of the first failed attempt since the last success; three days of failures disable the endpoint.
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('updated_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'varchar(48)', (col) => col.notNull())
    .addColumn('event_type', 'varchar(40)', (col) => col.notNull())
    .addColumn('subject', 'varchar(40)', (col) => col.notNull())
    // The exact body sent, so every attempt and a redelivery carry the same bytes.
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('claimed_by', 'varchar(36)')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'varchar(500)')
    .addColumn('last_attempt_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute()
  await db.schema.createIndex('webhook_deliveries_order_idx').on('webhook_deliveries').columns(['webhook_id', 'subject', 'id']).execute()
  await db.schema.createIndex('webhook_deliveries_created_at_idx').on('webhook_deliveries').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhooks').execute()
  await db.schema.dropTable('change_events').execute()
}
