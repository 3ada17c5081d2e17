import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from '../../../db/migrations/dialect.js'

// Organizations (teams), their members with a role each, and invitations by email. A membership
// goes with its organization or its user; an invitation's link is a one-time secret, named here
// by its hash so that a newer invitation to the same address ends the older one's link.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('slug', 'varchar(48)', (col) => col.notNull().unique())
    .addColumn('require_mfa', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('updated_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema
    .createTable('org_memberships')
    .addColumn('org_id', 'integer', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(8)', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addPrimaryKeyConstraint('org_memberships_pkey', ['org_id', 'user_id'])
    .execute()
  await db.schema.createIndex('org_memberships_user_id_idx').on('org_memberships').column('user_id').execute()
  await db.schema
    .createTable('org_invitations')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('org_id', 'integer', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('role', 'varchar(8)', (col) => col.notNull())
    .addColumn('invited_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('status', 'varchar(12)', (col) => col.notNull())
    // The account with the invited address that opened the link before verifying it: it joins once verified.
    .addColumn('claimed_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('secret_handle', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('answered_at', ts)
    .execute()
  await db.schema.createIndex('org_invitations_org_status_idx').on('org_invitations').columns(['org_id', 'status']).execute()
  await db.schema.createIndex('org_invitations_email_status_idx').on('org_invitations').columns(['email', 'status']).execute()
  // The organization's own security log: events that name it.
  await db.schema.alterTable('security_events').addColumn('org_id', 'integer').execute()
  await db.schema.createIndex('security_events_org_idx').on('security_events').columns(['org_id', 'created_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('security_events_org_idx').execute()
  await db.schema.alterTable('security_events').dropColumn('org_id').execute()
  await db.schema.dropTable('org_invitations').execute()
  await db.schema.dropTable('org_memberships').execute()
  await db.schema.dropTable('organizations').execute()
}
