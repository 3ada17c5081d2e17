import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from './dialect.js'

// Per-tier rate-limit rules (a null tier: logged-in callers without a tier) and API keys for
// server-to-server callers (stored as SHA-256; the key itself is shown once).
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)

  await db.schema
    .createTable('rate_limit_rules')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('tier_id', 'integer', (col) => col.references('tiers.id').onDelete('cascade'))
    // "GET /api/v2/users/{user_id}", "* /api/v2/posts/*" or "*".
    .addColumn('route', 'varchar(300)', (col) => col.notNull())
    .addColumn('limit_count', 'integer', (col) => col.notNull())
    .addColumn('period_seconds', 'integer', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('updated_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('rate_limit_rules_tier_idx').on('rate_limit_rules').column('tier_id').execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('prefix', 'varchar(16)', (col) => col.notNull())
    .addColumn('key_hash', 'varchar(64)', (col) => col.notNull().unique())
    // "read" or "read,write".
    .addColumn('scopes', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('expires_at', ts)
    .addColumn('last_used_at', ts)
    .addColumn('revoked_at', ts)
    .execute()
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_keys').execute()
  await db.schema.dropTable('rate_limit_rules').execute()
}
