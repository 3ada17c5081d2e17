import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { idColumn, now, timestampType } from '../../../db/migrations/dialect.js'

// "Download my data": each export a durable job row, claimed by one process at a time under a
// lease (a process killed mid-build loses it, and another takes the job over), then the ZIP's key
// in the store until it expires.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('data_exports')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // queued, building, ready or failed.
    .addColumn('status', 'varchar(10)', (col) => col.notNull())
    .addColumn('items_written', 'integer', (col) => col.notNull().defaultTo(0))
    // The ZIP's key in the store: the building attempt's, then the finished one's.
    .addColumn('storage_key', 'varchar(255)')
    .addColumn('size', 'bigint')
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('claimed_by', 'varchar(36)')
    .addColumn('claimed_until', 'bigint')
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('finished_at', ts)
    .addColumn('expires_at', ts)
    .execute()
  await db.schema.createIndex('data_exports_user_idx').on('data_exports').columns(['user_id', 'id']).execute()
  await db.schema.createIndex('data_exports_due_idx').on('data_exports').columns(['status', 'next_attempt_at']).execute()
  // One export under way per user, whatever the races between processes.
  await db.schema
    .createIndex('data_exports_one_running_idx')
    .unique()
    .on('data_exports')
    .column('user_id')
    .where(sql.ref('status'), 'in', [sql.lit('queued'), sql.lit('building')])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('data_exports').execute()
}
