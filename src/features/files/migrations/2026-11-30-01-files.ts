import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from '../../../db/migrations/dialect.js'

// Files: uploads owned by a user, attached to at most one post; their image variants; each
// user's usage (what completed files count, and what uploads in progress have reserved); the
// store's outbox (objects to remove, written in the change's transaction); and tiers' quotas.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('files')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('post_id', 'integer', (col) => col.references('posts.id').onDelete('set null'))
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('content_type', 'varchar(100)', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'varchar(64)')
    .addColumn('storage_key', 'varchar(255)', (col) => col.notNull().unique())
    // pending: an upload in progress, its size reserved; ready: a file, its size counted.
    .addColumn('status', 'varchar(8)', (col) => col.notNull())
    // form: the bytes came through POST /files; direct: through a presigned or the local upload URL.
    .addColumn('upload_kind', 'varchar(8)', (col) => col.notNull())
    .addColumn('expires_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('files_owner_id_idx').on('files').columns(['owner_id', 'id']).execute()
  await db.schema.createIndex('files_post_id_idx').on('files').columns(['post_id']).execute()
  await db.schema.createIndex('files_status_expires_idx').on('files').columns(['status', 'expires_at']).execute()
  await db.schema
    .createTable('file_variants')
    .addColumn('file_id', 'integer', (col) => col.notNull().references('files.id').onDelete('cascade'))
    .addColumn('preset', 'varchar(32)', (col) => col.notNull())
    .addColumn('storage_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addPrimaryKeyConstraint('file_variants_pkey', ['file_id', 'preset'])
    .execute()
  await db.schema
    .createTable('storage_usage')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('files', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('reserved_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('reserved_files', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('blob_deletions')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('storage_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('claimed_by', 'varchar(36)')
    .addColumn('claimed_until', 'bigint')
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('blob_deletions_due_idx').on('blob_deletions').columns(['next_attempt_at']).execute()
  // Null: the default quota (STORAGE_QUOTA_BYTES, STORAGE_QUOTA_FILES).
  await db.schema.alterTable('tiers').addColumn('storage_bytes', 'bigint').execute()
  await db.schema.alterTable('tiers').addColumn('storage_files', 'integer').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tiers').dropColumn('storage_files').execute()
  await db.schema.alterTable('tiers').dropColumn('storage_bytes').execute()
  await db.schema.dropTable('blob_deletions').execute()
  await db.schema.dropTable('storage_usage').execute()
  await db.schema.dropTable('file_variants').execute()
  await db.schema.dropTable('files').execute()
}
