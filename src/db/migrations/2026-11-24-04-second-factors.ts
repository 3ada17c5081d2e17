import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Second factors: a user's TOTP secret (encrypted, pending until confirmed, with the last time
// step used so that no code is accepted twice), their single-use recovery codes (hashed), and the
// short-lived challenges a first factor hands out when a second one is due.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'varchar(200)', (col) => col.notNull())
    .addColumn('confirmed_at', ts)
    .addColumn('last_used_step', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema
    .createTable('recovery_codes')
    .addColumn('code_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('recovery_codes_user_id_idx').on('recovery_codes').column('user_id').execute()
  await db.schema
    .createTable('mfa_challenges')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The first factor that was proven (password, email_code, oidc:google …).
    .addColumn('method', 'varchar(32)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('mfa_challenges_expires_at_idx').on('mfa_challenges').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mfa_challenges').execute()
  await db.schema.dropTable('recovery_codes').execute()
  await db.schema.dropTable('totp_factors').execute()
}
