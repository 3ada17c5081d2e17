import type { Kysely } from 'kysely'

import { idColumn, now, timestampType } from '../../../db/migrations/dialect.js'

// Moderation: a ban on the users row (until when, why, the message its owner is shown, who and
// when), impersonations by support (each one a session of its user) and every request made in
// one, and who acted on a security event (the superuser) with what the event needs to say.
export async function up(db: Kysely<any>): Promise<void> {
  const ts = timestampType(db)
  await db.schema.alterTable('users').addColumn('banned_until', ts).execute()
  await db.schema.alterTable('users').addColumn('ban_reason', 'varchar(500)').execute()
  await db.schema.alterTable('users').addColumn('ban_message', 'varchar(500)').execute()
  await db.schema.alterTable('users').addColumn('banned_by', 'integer').execute()
  await db.schema.alterTable('users').addColumn('banned_at', ts).execute()
  await db.schema.createIndex('users_banned_until_idx').on('users').column('banned_until').where('banned_until', 'is not', null).execute()
  await db.schema
    .createTable('impersonations')
    // The session it opened (sessions.id): its tokens name it, and ending it ends them.
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('superuser_id', 'integer', (col) => col.notNull())
    .addColumn('mode', 'varchar(9)', (col) => col.notNull())
    .addColumn('reason', 'varchar(500)', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .addColumn('expires_at', ts, (col) => col.notNull())
    .addColumn('ended_at', ts)
    .execute()
  await db.schema.createIndex('impersonations_user_idx').on('impersonations').columns(['user_id', 'created_at']).execute()
  await db.schema.createIndex('impersonations_superuser_idx').on('impersonations').columns(['superuser_id', 'created_at']).execute()
  await db.schema
    .createTable('impersonation_requests')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('impersonation_id', 'varchar(36)', (col) => col.notNull().references('impersonations.id').onDelete('cascade'))
    .addColumn('method', 'varchar(10)', (col) => col.notNull())
    .addColumn('route', 'varchar(255)', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull())
    .addColumn('created_at', ts, (col) => col.notNull().defaultTo(now(db)))
    .execute()
  await db.schema.createIndex('impersonation_requests_idx').on('impersonation_requests').columns(['impersonation_id', 'id']).execute()
  await db.schema.alterTable('security_events').addColumn('actor_id', 'integer').execute()
  await db.schema.alterTable('security_events').addColumn('details', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('security_events').dropColumn('details').execute()
  await db.schema.alterTable('security_events').dropColumn('actor_id').execute()
  await db.schema.dropTable('impersonation_requests').execute()
  await db.schema.dropTable('impersonations').execute()
  await db.schema.dropIndex('users_banned_until_idx').execute()
  for (const column of ['banned_at', 'banned_by', 'ban_message', 'ban_reason', 'banned_until']) await db.schema.alterTable('users').dropColumn(column).execute()
}
