import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { idColumn, timestampType } from '../../../db/migrations/dialect.js'

// Reports of posts, comments and users: a queue for superusers, and for an organization's admins
// the reports of its posts and their comments (`org_id`). One open report per reporter and target.
// No foreign key to the target: a report outlives what it was about (a removed post keeps its
// resolved report for the record).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reports')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('reporter_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('target', 'varchar(7)', (col) => col.notNull())
    .addColumn('target_id', 'integer', (col) => col.notNull())
    .addColumn('target_owner_id', 'integer', (col) => col.notNull())
    .addColumn('org_id', 'integer')
    .addColumn('reason', 'varchar(20)', (col) => col.notNull())
    .addColumn('note', 'varchar(1000)')
    .addColumn('status', 'varchar(9)', (col) => col.notNull().defaultTo('open'))
    .addColumn('action', 'varchar(7)')
    .addColumn('resolved_by', 'integer')
    .addColumn('resolved_at', timestampType(db))
    .addColumn('created_at', timestampType(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('reports_one_open_idx').on('reports').columns(['reporter_id', 'target', 'target_id']).unique().where(sql.ref('status'), '=', 'open').execute()
  await db.schema.createIndex('reports_queue_idx').on('reports').columns(['status', 'id']).execute()
  await db.schema.createIndex('reports_org_queue_idx').on('reports').columns(['org_id', 'status', 'id']).where(sql.ref('org_id'), 'is not', null).execute()
  await db.schema.createIndex('reports_target_idx').on('reports').columns(['target', 'target_id', 'status']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reports').execute()
}
