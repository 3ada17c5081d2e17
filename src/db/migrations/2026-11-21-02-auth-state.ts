import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Shared authentication state, kept in the database so that several server processes agree:
// refresh-token families (rotation and reuse detection), revoked access-token ids, and
// rate-limit counters (used when no Redis is configured).
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('jti', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('family_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('revoked_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('refresh_tokens_family_id_idx').on('refresh_tokens').column('family_id').execute()
  await db.schema.createIndex('refresh_tokens_user_id_idx').on('refresh_tokens').column('user_id').execute()
  await db.schema.createIndex('refresh_tokens_expires_at_idx').on('refresh_tokens').column('expires_at').execute()

  await db.schema
    .createTable('revoked_tokens')
    .addColumn('jti', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .execute()
  await db.schema.createIndex('revoked_tokens_expires_at_idx').on('revoked_tokens').column('expires_at').execute()

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addColumn('reset_at', 'bigint', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('rate_limits_reset_at_idx').on('rate_limits').column('reset_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limits').execute()
  await db.schema.dropTable('revoked_tokens').execute()
  await db.schema.dropTable('refresh_tokens').execute()
}
