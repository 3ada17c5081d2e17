import type { Kysely } from 'kysely'

import { now, timestampType } from './dialect.js'

// The keys access tokens are signed with (JWT_ALGORITHM EdDSA, ES256 or RS256): made on first
// start when JWT_PRIVATE_KEY is not given, kept here so that every process and every machine on
// this database signs with the same key, the private half sealed under SECRET_KEY. A retired key
// is still published (and accepted) until the tokens it signed have expired.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('signing_keys')
    // RFC 7638 thumbprint of the public key.
    .addColumn('kid', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('algorithm', 'varchar(16)', (col) => col.notNull())
    .addColumn('private_key', 'text', (col) => col.notNull())
    .addColumn('public_jwk', 'text', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('retired_at', ts)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('signing_keys').execute()
}
