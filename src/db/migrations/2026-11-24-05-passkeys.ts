import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Passkeys (WebAuthn credentials) of users, and the challenges the service hands out for them:
// stored server-side, single use, five minutes, each bound to what it was asked for (registering
// for a user, signing in, or a second factor for one sign-in's mfa_token).
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The authenticator's credential id, base64url; unique across the service.
    .addColumn('credential_id', 'varchar(1400)', (col) => col.notNull().unique())
    // COSE keys: ES256 is about 100 bytes, RSA and ML-DSA keys run to several kilobytes.
    .addColumn('public_key', 'text', (col) => col.notNull())
    // The signature counter: 32 bits, past PostgreSQL's integer.
    .addColumn('counter', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('transports', 'varchar(200)')
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('device_type', 'varchar(32)', (col) => col.notNull())
    .addColumn('backed_up', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('last_used_at', ts)
    .execute()
  await db.schema.createIndex('passkeys_user_id_idx').on('passkeys').column('user_id').execute()
  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('challenge_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('purpose', 'varchar(16)', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('mfa_token_hash', 'varchar(64)')
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('webauthn_challenges_expires_at_idx').on('webauthn_challenges').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').execute()
  await db.schema.dropTable('passkeys').execute()
}
