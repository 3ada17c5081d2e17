import type { Kysely } from 'kysely'

import { timestampType } from '../../../db/migrations/dialect.js'

// Who blocked whom: a row per blocker and blocked user, gone with either account.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_blocks')
    .addColumn('blocker_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('blocked_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('user_blocks_pkey', ['blocker_id', 'blocked_id'])
    .execute()
  // "Did any of these people block me?" (commenting, reacting).
  await db.schema.createIndex('user_blocks_blocked_idx').on('user_blocks').columns(['blocked_id', 'blocker_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_blocks').execute()
}
