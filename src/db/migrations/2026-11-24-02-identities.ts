import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// Sign-in through identity providers: the identities linked to each user, each sign-in flow in
// flight (its state, nonce and PKCE verifier, bound to one browser), and the one-time codes that
// hand a finished sign-in to the frontend. Secrets are stored as SHA-256 hashes.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('user_identities')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(40)', (col) => col.notNull())
    // The provider's `sub`: stable for the person at that provider, unlike their email.
    .addColumn('subject', 'varchar(255)', (col) => col.notNull())
    .addColumn('email', 'varchar(254)')
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addUniqueConstraint('user_identities_provider_subject_key', ['provider', 'subject'])
    .execute()
  await db.schema.createIndex('user_identities_user_id_idx').on('user_identities').column('user_id').execute()

  await db.schema
    .createTable('sign_in_flows')
    .addColumn('state_hash', 'varchar(64)', (col) => col.primaryKey())
    // SHA-256 of the HttpOnly cookie set on the browser that started the flow.
    .addColumn('browser_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('provider', 'varchar(40)', (col) => col.notNull())
    .addColumn('nonce', 'varchar(64)', (col) => col.notNull())
    .addColumn('code_verifier', 'varchar(128)', (col) => col.notNull())
    .addColumn('redirect_to', 'varchar(2048)', (col) => col.notNull())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('sign_in_flows_expires_at_idx').on('sign_in_flows').column('expires_at').execute()

  await db.schema
    .createTable('sign_in_codes')
    .addColumn('code_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('method', 'varchar(48)', (col) => col.notNull())
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('sign_in_codes_expires_at_idx').on('sign_in_codes').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sign_in_codes').execute()
  await db.schema.dropTable('sign_in_flows').execute()
  await db.schema.dropTable('user_identities').execute()
}
