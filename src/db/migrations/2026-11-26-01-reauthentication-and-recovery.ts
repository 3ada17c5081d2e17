import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { now, timestampType } from './dialect.js'

// What the fourth audit's fixes keep:
// - sessions: when the session last proved who it is (a sign-in by password, second factor or
//   passkey, or POST /reauthenticate) and with what, so new ways in can ask for a recent proof;
// - users.email_verified_at: when the account first proved its mailbox. A sign-in by email or a
//   reset on an account that never did adopts it, ending the ways in someone else may have added;
// - the hand-off code of a provider sign-in, bound to the flow that started it (a PKCE challenge
//   the frontend chose, or the browser's cookie);
// - one_time_secrets: single-use secrets by purpose, hashed, with an attempt counter for codes.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema.alterTable('sessions').addColumn('proven_at', ts).execute()
  await db.schema.alterTable('sessions').addColumn('proof', 'varchar(16)').execute()

  await db.schema.alterTable('users').addColumn('email_verified_at', ts).execute()
  // Accounts verified now, or once before an email change, proved a mailbox already.
  await db
    .updateTable('users')
    .set({ email_verified_at: sql`updated_at` })
    .where((eb) =>
      eb.or([
        eb('is_verified', '=', 1),
        eb.exists(eb.selectFrom('security_events').select('security_events.id').whereRef('security_events.user_id', '=', 'users.id').where('security_events.type', 'in', ['email_verified', 'password_reset'])),
      ]),
    )
    .execute()

  await db.schema.alterTable('sign_in_flows').addColumn('handoff_challenge', 'varchar(128)').execute()
  await db.schema.alterTable('sign_in_codes').addColumn('code_challenge', 'varchar(128)').execute()
  await db.schema.alterTable('sign_in_codes').addColumn('browser_hash', 'varchar(64)').execute()

  await db.schema
    .createTable('one_time_secrets')
    .addColumn('secret_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
    // For a code a person types (six digits): its HMAC, salted by the row; guesses count in attempts.
    .addColumn('code_hash', 'varchar(64)')
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('data', 'text')
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('one_time_secrets_user_purpose_idx').on('one_time_secrets').columns(['user_id', 'purpose']).execute()
  await db.schema.createIndex('one_time_secrets_expires_at_idx').on('one_time_secrets').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('one_time_secrets').execute()
  await db.schema.alterTable('sign_in_codes').dropColumn('browser_hash').execute()
  await db.schema.alterTable('sign_in_codes').dropColumn('code_challenge').execute()
  await db.schema.alterTable('sign_in_flows').dropColumn('handoff_challenge').execute()
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute()
  await db.schema.alterTable('sessions').dropColumn('proof').execute()
  await db.schema.alterTable('sessions').dropColumn('proven_at').execute()
}
